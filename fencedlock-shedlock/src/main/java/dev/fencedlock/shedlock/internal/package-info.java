/** Internal: the ShedLock provider's helpers, not an API. */
package dev.fencedlock.shedlock.internal;
