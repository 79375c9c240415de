// Checker built by the tests against Debian's libsdformat (pkg-config sdformat12): loads an SDF world
// or a URDF (which libsdformat converts to SDF exactly as Gazebo does) and prints what it understood,
// one record per line, so that the tests compare it with our own readers:
//   error <message>                                        (exit status 1 if any)
//   box <model> <static 0|1> <x> <y> <z> <yaw> <sx> <sy> <sz>   (collision boxes, world frame)
//   plane <model> <z>
//   link <name> <mass> <ixx> <iyy> <izz>
//   joint <name> <type> <parent> <child> <spring_stiffness> <spring_reference> <damping> <lower> <upper> <effort>
//   friction <link> <mu> <mu2> <fdir1 x> <fdir1 y> <fdir1 z>  (collision surface, ODE block)
//   plugin <filename> <name>                               (model plugins, e.g. gz_ros2_control)
#include <iostream>
#include <string>

#include <ignition/math/Pose3.hh>
#include <sdf/sdf.hh>

namespace
{
std::string JointTypeName(sdf::JointType t)
{
  switch (t)
  {
    case sdf::JointType::REVOLUTE: return "revolute";
    case sdf::JointType::CONTINUOUS: return "continuous";
    case sdf::JointType::FIXED: return "fixed";
    case sdf::JointType::PRISMATIC: return "prismatic";
    default: return "other";
  }
}

void PrintModel(const sdf::Model *model, bool inWorld)
{
  for (uint64_t l = 0; l < model->LinkCount(); ++l)
  {
    const sdf::Link *link = model->LinkByIndex(l);
    const auto &moi = link->Inertial().Moi();
    std::cout << "link " << link->Name() << " " << link->Inertial().MassMatrix().Mass() << " "
              << moi(0, 0) << " " << moi(1, 1) << " " << moi(2, 2) << "\n";
    for (uint64_t c = 0; c < link->CollisionCount(); ++c)
    {
      const sdf::Collision *col = link->CollisionByIndex(c);
      ignition::math::Pose3d inModel, model_pose;
      sdf::Errors errs = col->SemanticPose().Resolve(inModel, "__model__");
      if (inWorld)
      {
        const sdf::Errors more = model->SemanticPose().Resolve(model_pose);
        errs.insert(errs.end(), more.begin(), more.end());
      }
      for (const auto &e : errs)
        std::cout << "error " << e.Message() << "\n";
      // world pose = model pose composed with the pose in the model frame
      const ignition::math::Pose3d pose(model_pose.Pos() + model_pose.Rot().RotateVector(inModel.Pos()),
                                        model_pose.Rot() * inModel.Rot());
      const sdf::ElementPtr el = col->Element();
      if (el && el->HasElement("surface") && el->GetElement("surface")->HasElement("friction") &&
          el->GetElement("surface")->GetElement("friction")->HasElement("ode"))
      {
        const sdf::ElementPtr ode = el->GetElement("surface")->GetElement("friction")->GetElement("ode");
        const auto fdir1 = ode->Get<ignition::math::Vector3d>("fdir1");
        std::cout << "friction " << link->Name() << " " << ode->Get<double>("mu") << " " << ode->Get<double>("mu2")
                  << " " << fdir1.X() << " " << fdir1.Y() << " " << fdir1.Z() << "\n";
      }
      const sdf::Geometry *geom = col->Geom();
      if (geom->Type() == sdf::GeometryType::BOX)
      {
        const auto size = geom->BoxShape()->Size();
        std::cout << "box " << model->Name() << " " << (model->Static() ? 1 : 0) << " " << pose.Pos().X() << " "
                  << pose.Pos().Y() << " " << pose.Pos().Z() << " " << pose.Rot().Yaw() << " " << size.X() << " "
                  << size.Y() << " " << size.Z() << "\n";
      }
      else if (geom->Type() == sdf::GeometryType::PLANE)
      {
        std::cout << "plane " << model->Name() << " " << pose.Pos().Z() << "\n";
      }
    }
  }
  for (uint64_t j = 0; j < model->JointCount(); ++j)
  {
    const sdf::Joint *joint = model->JointByIndex(j);
    std::cout << "joint " << joint->Name() << " " << JointTypeName(joint->Type()) << " "
              << joint->ParentLinkName() << " " << joint->ChildLinkName();
    const sdf::JointAxis *axis = joint->Axis(0);
    if (axis)
      std::cout << " " << axis->SpringStiffness() << " " << axis->SpringReference() << " " << axis->Damping()
                << " " << axis->Lower() << " " << axis->Upper() << " " << axis->Effort();
    std::cout << "\n";
  }
  sdf::ElementPtr elem = model->Element();
  if (elem && elem->HasElement("plugin"))
  {
    for (sdf::ElementPtr p = elem->GetElement("plugin"); p; p = p->GetNextElement("plugin"))
      std::cout << "plugin " << p->Get<std::string>("filename") << " " << p->Get<std::string>("name") << "\n";
  }
}
}  // namespace

int main(int argc, char **argv)
{
  if (argc != 2)
  {
    std::cerr << "usage: sdf_check FILE.sdf|FILE.urdf\n";
    return 2;
  }
  std::cout.precision(17);
  sdf::Root root;
  const sdf::Errors errors = root.Load(argv[1]);
  for (const auto &e : errors)
    std::cout << "error " << e.Message() << "\n";
  if (root.WorldCount() > 0)
  {
    const sdf::World *world = root.WorldByIndex(0);
    for (uint64_t m = 0; m < world->ModelCount(); ++m)
      PrintModel(world->ModelByIndex(m), true);
  }
  else if (root.Model() != nullptr)
  {
    PrintModel(root.Model(), false);
  }
  else
  {
    std::cout << "error no world and no model in " << argv[1] << "\n";
    return 1;
  }
  return errors.empty() ? 0 : 1;
}
