print("cookbook-importer: under construction")
