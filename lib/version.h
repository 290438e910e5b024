/* version.h - the toolchain's version, shown by every program's --version. */
#ifndef HPC_VERSION_H
#define HPC_VERSION_H

#define HPC_VERSION "0.1.0"
#define HPC_PACKAGE "hpctoolkit-c"

#endif
