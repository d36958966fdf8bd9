// Self-containment check: the matrix compiles this file with -include <one public header>, so the header must
// compile on its own, first in a translation unit, without warnings.

int kilnStandaloneHeaderCheck();
