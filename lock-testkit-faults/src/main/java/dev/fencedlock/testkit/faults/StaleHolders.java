package dev.fencedlock.testkit.faults;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.zookeeper.ZooKeeperLocks;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.util.Objects;

/**
 * Makes a stale holder on a real backend, for an application's own tests of its fence: {@link
 * #takeAway} removes a held lease's grant on the backend behind it, as a Redis node that lost its
 * data or an operator clearing a "stuck" lock would. The next holder is then granted (with a larger
 * token) while the old lease still believes it is valid, and only the fence stands between the old
 * holder's write and the data:
 *
 * <pre>{@code
 * StaleHolders stale = StaleHolders.zookeeper(settings);
 * Lease old = clientA.lock("sku-42").acquire(wait, Duration.ofSeconds(30));
 * stale.takeAway(old);                                   // old.isValid() is still true
 * Lease newer = clientB.lock("sku-42").acquire(wait);    // granted, newer.token() > old.token()
 * JdbcFencing.inTransaction(data, newer, work);          // committed
 * JdbcFencing.inTransaction(data, old, work);            // refused
 * }</pre>
 *
 * <p>What is removed, per backend; the token state stays, so the next token is larger:
 *
 * <table>
 *   <caption>The grant each backend loses</caption>
 *   <tr><th>backend</th><th>removed</th></tr>
 *   <tr><td>{@code redlock}</td><td>the lock key ({@code RedlockKeys#lock}) on every node; with
 *       Sentinel on the master the Sentinels name, with a Cluster on the master of the key's
 *       slot</td></tr>
 *   <tr><td>{@code zookeeper}</td><td>the holder's node under {@code ZooKeeperLocks#lockPath}, the
 *       child with the lowest sequence number</td></tr>
 *   <tr><td>{@code jdbc}</td><td>the grant in the lock's row of the lock table (its holder value
 *       cleared); the row and its token stay</td></tr>
 *   <tr><td>{@code local}</td><td>{@link dev.fencedlock.testkit.local.LocalLockFaults#loseLease}</td></tr>
 * </table>
 *
 * <p>The old lease learns of the loss only when it next talks to the backend (its renewal, {@code
 * extend}, or for ZooKeeper the check of a fixed lease's node every third of it): a test that wants
 * the old holder to still believe itself valid writes before then, or uses a fixed lease of a few
 * seconds or more.
 *
 * <p>Only what the backend needs has to be on the test classpath: {@code redlock-provider}, {@code
 * zookeeper-provider}, {@code jdbc-provider}, or for {@code local} {@code lock-testkit} (each an
 * optional dependency of this module). Using a backend whose module is absent fails with {@link
 * NoClassDefFoundError}.
 *
 * <p>Immutable and thread-safe. Each {@link #takeAway} opens its own connection(s) to the backend
 * and closes them before it returns; a Curator client or data source that the settings carry is
 * used and left open.
 */
public final class StaleHolders {
    private final String backend;
    private final GrantRemover remover;

    private StaleHolders(String backend, GrantRemover remover) {
        this.backend = backend;
        this.remover = remover;
    }

    /** For locks of the {@code redlock} backend on {@code settings}' nodes (independent masters, Sentinel or Cluster). */
    public static StaleHolders redlock(RedlockSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new StaleHolders(RedlockLocks.BACKEND, RedisLockKeys.of(settings));
    }

    /**
     * For locks of the {@code zookeeper} backend on {@code settings}' ensemble and base path: its
     * Curator client when it carries one, else a client of its own on {@code connect} per call.
     */
    public static StaleHolders zookeeper(ZooKeeperSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new StaleHolders(ZooKeeperLocks.BACKEND, new ZooKeeperHolderNode(settings));
    }

    /** For locks of the {@code jdbc} backend in {@code settings}' lock table and database. */
    public static StaleHolders jdbc(JdbcLockSettings settings) {
        Objects.requireNonNull(settings, "settings");
        return new StaleHolders(JdbcLocks.BACKEND, new JdbcLockRow(settings));
    }

    /** For locks of the in-process {@code local} backend of this JVM. */
    public static StaleHolders local() {
        return new StaleHolders(LocalGrant.BACKEND, new LocalGrant());
    }

    /**
     * For locks of the backend {@code config} names ({@code fencedlock.backend}), reached with its
     * keys of that backend, as a {@link dev.fencedlock.LockClient} on {@code config} reaches it.
     *
     * @throws IllegalArgumentException if the backend is not {@code redlock}, {@code zookeeper},
     *     {@code jdbc} or {@code local}, or its settings are rejected
     */
    public static StaleHolders forConfig(LockConfig config) {
        Objects.requireNonNull(config, "config");
        String backend = config.backend();
        return switch (backend) {
            case RedlockLocks.BACKEND -> redlock(RedlockSettings.from(config.settings(backend)));
            case ZooKeeperLocks.BACKEND -> zookeeper(ZooKeeperSettings.from(config.settings(backend)));
            case JdbcLocks.BACKEND -> jdbc(JdbcLockSettings.from(config.settings(backend)));
            case LocalGrant.BACKEND -> local();
            default ->
                throw new IllegalArgumentException("StaleHolders takes leases away on the redlock, zookeeper, jdbc"
                        + " and local backends, not on " + LockConfig.BACKEND + "=" + backend);
        };
    }

    /**
     * Removes {@code lease}'s grant on the backend, leaving {@code lease} itself untouched: it stays
     * {@link Lease#isValid() valid} until it next talks to the backend, and the lock is free for the
     * next holder at once.
     *
     * @throws IllegalStateException if {@code lease} is no longer valid, or the backend holds no
     *     grant of its lock (released, expired, or a lease of another backend or another
     *     deployment; the {@code local} backend cannot tell), or could not be reached; nothing was
     *     changed
     * @throws IllegalArgumentException if {@code lease} is null
     */
    public void takeAway(Lease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease must not be null");
        }
        if (!lease.isValid()) {
            throw new IllegalStateException("The lease of lock '" + lease.lockName() + "' with token " + lease.token()
                    + " is no longer valid: there is no held lease to take away");
        }
        remover.remove(lease.lockName());
    }

    @Override
    public String toString() {
        return "StaleHolders[" + backend + "]";
    }
}
