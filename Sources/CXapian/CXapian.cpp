#include "CXapian.h"
extern "C" int cxapian_placeholder(void) { return 0; }
