/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The upper bound of key in an array sorted by one member: the index of the first element
 * whose member is above key, which is also how many are at or below it (nr when none is
 * above). The element before it is the last that starts at or before key: the symbol, the
 * range or the unwind row that may hold an address. A macro, for arrays of any type.
 */
#ifndef HEAPTAP_BSEARCH_UPPER_H
#define HEAPTAP_BSEARCH_UPPER_H

#include <stddef.h>

#define BSEARCH_UPPER(array, nr, member, key)                                                 \
	({                                                                                    \
		size_t bu_lo_ = 0, bu_hi_ = (nr);                                             \
		while (bu_lo_ < bu_hi_) {                                                     \
			size_t bu_mid_ = bu_lo_ + (bu_hi_ - bu_lo_) / 2;                      \
			if ((array)[bu_mid_].member <= (key))                                 \
				bu_lo_ = bu_mid_ + 1;                                         \
			else                                                                  \
				bu_hi_ = bu_mid_;                                             \
		}                                                                             \
		bu_lo_;                                                                       \
	})

#endif
