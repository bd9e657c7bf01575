package dev.fencedlock.testkit.local;

import dev.fencedlock.LockNames;
import dev.fencedlock.internal.local.LocalProviderFactory;

/**
 * Faults a test forces on the in-process {@code local} backend ({@code fencedlock.backend=local}),
 * so that the code under test meets a lost lease, an expired lease or a jump in tokens without
 * Redis, ZooKeeper or waiting. They act on every local client of this JVM, as the backend's locks
 * do.
 *
 * <table>
 *   <caption>What each fault does to the holder's lease</caption>
 *   <tr><th>fault</th><th>{@code isValid()}</th><th>{@code onLost}</th><th>the lock</th></tr>
 *   <tr><td>{@link #loseLease}</td><td>stays {@code true} until the holder next talks to the backend
 *       (its renewal, or {@code extend}, which then throws {@code LeaseLostException})</td>
 *       <td>fires then</td><td>free at once: a new holder (with a larger token) and the old one
 *       may both believe they hold it, the case a fence exists for</td></tr>
 *   <tr><td>{@link #expireLease}</td><td>{@code false} at once</td><td>fires at once</td>
 *       <td>free at once</td></tr>
 *   <tr><td>{@link #jumpTokens}</td><td>unchanged</td><td>not fired</td><td>unchanged; the next
 *       grant of any lock gets a token larger by at least the jump</td></tr>
 * </table>
 *
 * <p>Thread-safe. Tests that run in parallel should use lock names of their own.
 */
public final class LocalLockFaults {
    private LocalLockFaults() {}

    /**
     * The backend forgets the grant of {@code lockName}, as when an operator deletes a lock key or a
     * failover loses it. The holder finds out only when it next talks to the backend.
     *
     * @throws IllegalArgumentException if {@code lockName} is not a valid lock name
     */
    public static void loseLease(String lockName) {
        LocalProviderFactory.forceRelease(LockNames.requireValid(lockName));
    }

    /**
     * The lease holding {@code lockName} runs out now, as if its renewals had failed until its
     * validity was spent.
     *
     * @return whether a lease held the lock
     * @throws IllegalArgumentException if {@code lockName} is not a valid lock name
     */
    public static boolean expireLease(String lockName) {
        return LocalProviderFactory.forceExpire(LockNames.requireValid(lockName));
    }

    /**
     * Moves tokens forward: the next grant of any local lock gets a token at least {@code by} larger
     * than the last one, as after grants made elsewhere (another process, another backend). For
     * tests that a store refuses a holder whose token is far behind.
     *
     * @return a token below the next grant's
     * @throws IllegalArgumentException if {@code by} is not positive
     */
    public static long jumpTokens(long by) {
        if (by <= 0) {
            throw new IllegalArgumentException("by must be positive, got " + by);
        }
        return LocalProviderFactory.skipTokens(by);
    }
}
