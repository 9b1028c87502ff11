// CNetlink is header-only; SwiftPM needs one C file to build the target.
#include "CNetlink.h"
