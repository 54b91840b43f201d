#include <sqlite3.h>
// For the heap block sizes LIMELIGHT_BENCH_RUSAGE prints.
#include <malloc.h>
