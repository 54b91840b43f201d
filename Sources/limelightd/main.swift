print("limelightd: under construction")
