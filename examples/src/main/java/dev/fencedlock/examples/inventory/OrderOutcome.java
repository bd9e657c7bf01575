package dev.fencedlock.examples.inventory;

/** What became of one attempt to sell a unit. */
enum OrderOutcome {
    /** The unit was sold and the transaction committed. */
    SOLD,
    /** The SKU had no stock left; nothing was written. */
    SOLD_OUT,
    /** The fence refused the write because the lease was stale; the transaction rolled back. */
    STALE_REFUSED,
    /** The lock stayed taken for the whole wait; nothing was written. */
    LOCK_TIMEOUT
}
