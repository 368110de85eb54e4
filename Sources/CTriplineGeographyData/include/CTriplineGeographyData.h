// The geography tables embedded in the binary by geography.S (.incbin), see docs/GEOGRAPHY.md.
#ifndef CTRIPLINE_GEOGRAPHY_DATA_H
#define CTRIPLINE_GEOGRAPHY_DATA_H

#include <stddef.h>

/// Which embedded table: 0 time zones, 1 countries, 2 populated places, 3 base layer.
/// Returns the first byte (16-byte aligned) and sets *size; NULL and 0 for an unknown table.
const unsigned char *tripline_geography_table(int which, size_t *size);

#endif
