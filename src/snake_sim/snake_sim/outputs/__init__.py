"""What a run writes for people: plots, animations, the compare figure, rosbag recordings, output folders."""
