// URDF → SDF exactly as Gazebo converts it: libsdformat's sdf::Root::Load on a URDF (fixed joints lumped,
// <gazebo> extensions applied), printed as the SDF document. Built and cached by snake_sim.engines.dart.sdf.
//   urdf2sdf <file.urdf>   → SDF on stdout; libsdformat's errors on stderr, exit status 1
#include <iostream>

#include <sdf/sdf.hh>

int main(int argc, char **argv)
{
  if (argc != 2)
  {
    std::cerr << "usage: urdf2sdf <file.urdf>\n";
    return 2;
  }
  sdf::Root root;
  const sdf::Errors errors = root.Load(argv[1]);
  for (const auto &e : errors)
    std::cerr << e.Message() << "\n";
  if (!errors.empty())
    return 1;
  std::cout << root.Element()->ToString("");
  return 0;
}
