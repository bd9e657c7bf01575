package dev.fencedlock.shedlock;

/** Counts the runs {@link FencedLockProvider} skipped because the backend could not answer. */
@FunctionalInterface
interface SkippedRuns {
    /** Counts nothing. */
    SkippedRuns NONE = () -> {};

    /** One run was skipped; called on the task's thread, so implementations are thread-safe. */
    void unavailable();
}
