/* lboot's version string (the Makefile may pass -DLB_VERSION=...). */
#ifndef LB_VERSION_H
#define LB_VERSION_H

#ifndef LB_VERSION
#define LB_VERSION "0.1"
#endif

#endif
