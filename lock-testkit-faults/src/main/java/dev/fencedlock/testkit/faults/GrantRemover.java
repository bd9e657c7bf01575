package dev.fencedlock.testkit.faults;

/** Removes the current grant of a lock on one backend. Implementations are thread-safe. */
interface GrantRemover {

    /**
     * Removes the grant that holds {@code lockName} on the backend.
     *
     * @throws IllegalStateException if the backend holds no grant of {@code lockName}, or could not
     *     be reached (the cause attached)
     */
    void remove(String lockName);

    static IllegalStateException notHeld(String lockName, String where) {
        return new IllegalStateException("No grant of lock '" + lockName + "' is held " + where
                + ": the lease was released or expired there, or belongs to another backend or deployment");
    }
}
