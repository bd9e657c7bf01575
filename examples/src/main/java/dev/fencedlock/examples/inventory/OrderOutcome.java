package dev.fencedlock.examples.inventory;

/** What became of one attempt to sell a unit. */
enum OrderOutcome {
    /** The unit was sold and the transaction committed. */
    SOLD,
    /** The SKU had no stock left; nothing was written. */
    SOLD_OUT,
    /**
     * The fence refused the write before it reached the database: the lease had expired or was
     * lost by flush or commit time, or the database ended the transaction because it sat idle past
     * the lease (PostgreSQL). The transaction rolled back.
     */
    REFUSED_LEASE_INVALID,
    /**
     * The database refused the write: the row no longer held the fence value this transaction
     * read, or carried a newer token. The transaction rolled back.
     */
    REFUSED_BY_DATABASE,
    /** The lock stayed taken for the whole wait; nothing was written. */
    LOCK_TIMEOUT
}
