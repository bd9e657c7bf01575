package dev.fencedlock.faults.history;

/** What a client learned about one write to a counter. */
public enum WriteOutcome {
    /** The commit returned normally: the write is durable. */
    OK,
    /** The fence refused the write (a stale token, a row changed since it was read, or a lost lease). */
    REFUSED_STALE,
    /**
     * The commit failed in a way that does not say whether it took effect (a timeout, a broken
     * connection). Not a failure: the database may have applied it.
     */
    UNKNOWN
}
