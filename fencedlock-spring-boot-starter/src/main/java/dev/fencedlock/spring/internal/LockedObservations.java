package dev.fencedlock.spring.internal;

/**
 * Where a locked call reports its steps for tracing: the call, and inside it the acquisition, the
 * fence guard at each transaction's begin and each fenced commit. {@link #NONE} reports nothing;
 * {@link MicrometerObservations} makes each step a Micrometer {@code Observation}. Lock names and
 * tokens are unbounded, so they go only into high-cardinality values. Thread-safe.
 */
interface LockedObservations {
    /** The whole {@code @Locked} call, parent of the other steps. */
    String LOCKED = "fencedlock.locked";

    String ACQUIRE = "fencedlock.locked.acquire";
    /** The fence guard run on the connection right after a fenced transaction began. */
    String GUARD = "fencedlock.locked.guard";
    /** From the lease check before a fenced commit until the transaction completed. */
    String COMMIT = "fencedlock.locked.commit";

    /** Low cardinality: the backend that granted the lease, {@code none} when none did. */
    String BACKEND = "fencedlock.backend";
    /**
     * Low cardinality: {@code acquired}, {@code skipped}, {@code failed} (the call and its acquisition),
     * {@code committed}, {@code rolled_back} (a commit).
     */
    String OUTCOME = "fencedlock.outcome";
    /** High cardinality: the lock name. */
    String LOCK_NAME = "fencedlock.lock.name";
    /** High cardinality: the lease's token. */
    String TOKEN = "fencedlock.token";

    LockedObservations NONE = (step, lockName) -> Step.NONE;

    /** Starts {@code step} of the call on lock {@code lockName}; the caller stops it. */
    Step start(String step, String lockName);

    /** One started step. Not thread-safe: used by the thread that started it. */
    interface Step {
        Step NONE = new Step() {};

        default Step lowCardinality(String key, String value) {
            return this;
        }

        default Step highCardinality(String key, String value) {
            return this;
        }

        /** Makes this step the parent of the steps started on this thread until the scope is closed. */
        default Scope openScope() {
            return () -> {};
        }

        default void error(Throwable failure) {}

        default void stop() {}
    }

    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
