/* runtime.c - the preloaded sampling runtime (#3). */
#include <stdint.h>

/* Marks the library as ours; the launcher checks it is loadable. */
__attribute__((visibility("default"))) const uint32_t hpcrun_runtime_abi = 1;
