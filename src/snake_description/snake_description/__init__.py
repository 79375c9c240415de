"""The modular SEA snake's description: robot files (config/robots/), the xacro and meshes (urdf/) and worlds
(worlds/), the workspace's top-level folders as this package's data.

Found two ways, from the same files: ROS tools through ament's index (``$(find snake_description)`` in xacro,
``FindPackageShare("snake_description")`` in launch files: ``share/snake_description``); Python through the
package's own data (``importlib.resources.files("snake_description")``, what :mod:`snake_core.locator` asks).
The package folder holds links to the three folders (``config/robots``, ``urdf``, ``worlds``; setup.py makes
them when it runs): an editable
install (``make install``) reads the workspace through them, a build (colcon, a wheel) copies the files into
the package and into its share.
"""
