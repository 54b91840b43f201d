print("cookbook: under construction")
