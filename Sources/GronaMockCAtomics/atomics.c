// The operations are static inline in the header; SwiftPM wants one source file in a C target.
#include "GronaMockCAtomics.h"
