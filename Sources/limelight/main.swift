print("limelight: under construction")
