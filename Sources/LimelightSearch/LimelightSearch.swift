import CXapian
