// Declarations only: see include/CFuzzDriver.h. SwiftPM needs one source file per C target.
#include "CFuzzDriver.h"
