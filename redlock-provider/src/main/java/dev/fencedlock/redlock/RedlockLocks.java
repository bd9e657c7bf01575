package dev.fencedlock.redlock;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockEventListener;
import dev.fencedlock.redlock.internal.RedlockProviderFactory;
import dev.fencedlock.spi.LockClients;
import java.util.Objects;

/**
 * Clients of the {@code redlock} backend built from typed settings. Every backend module has a
 * class of this shape ({@code RedlockLocks}, {@code ZooKeeperLocks}, {@code JdbcLocks}):
 *
 * <ul>
 *   <li>{@code create(settings)}: the backend's typed settings, every common setting at its
 *       default;
 *   <li>{@code create(common, settings)}: {@code common} supplies the settings every backend
 *       shares ({@code fencedlock.lease-time}, {@code max-hold-time}, {@code fallback}, ...); its
 *       {@code fencedlock.backend} must name this backend, and its keys of this backend are not
 *       read, {@code settings} are used instead;
 *   <li>{@code create(common, settings, listener)}: as above, reporting to a {@link
 *       LockEventListener};
 *   <li>where a backend runs on a client the application already owns, {@code create(common,
 *       client)}: the settings are read from {@code common}'s keys of the backend, and the client
 *       is not closed with the {@link LockClient}.
 * </ul>
 *
 * <pre>{@code
 * LockClient client = RedlockLocks.create(RedlockSettings.builder()
 *         .nodes("redis://10.0.0.1:6379", "redis://10.0.0.2:6379", "redis://10.0.0.3:6379")
 *         .nodeTimeout(Duration.ofMillis(50))
 *         .build());
 * }</pre>
 *
 * <p>Configuration by keys alone ({@code fencedlock.backend=redlock}, {@link LockClient#create},
 * {@link LockClient#fromEnvironment}) reaches the same backend with the same checks.
 *
 * <p>The {@code redlock} backend: Redlock over N independent Redis masters, with a fencing token on
 * every lease and a restart quarantine enforced by the client.
 *
 * <ol>
 *   <li>Acquire: {@code SET NX PX} with a fresh random value on all nodes in parallel, in one Lua
 *       script that also installs the proposed fencing token on the node's counter for the lock.
 *   <li>The lock is granted when a quorum ({@code N/2+1}) of nodes that are out of restart
 *       quarantine and cannot evict keys said yes, the token was installed on a quorum (else it
 *       is written back in a second round), and {@code ttl - elapsed - (ttl * drift + 2 ms)} is
 *       still positive.
 *   <li>Otherwise the client releases on all nodes and retries after a random delay, woken early by
 *       releases (in-process queue, Redis pub/sub) until the wait is spent.
 *   <li>Extension and release are compare-and-pexpire and compare-and-delete on all nodes.
 * </ol>
 *
 * <p>Settings: {@link RedlockSettings} ({@code fencedlock.redlock.nodes}, or {@code
 * sentinel.master} with {@code sentinel.nodes}, or {@code cluster.nodes}; {@code node-timeout}, {@code drift-factor}, {@code
 * retry-delay}, {@code restart-quarantine}, {@code persistent-nodes}, {@code key-prefix}, {@code
 * wait-replicas}).
 *
 * <p>Sentinel mode ({@code fencedlock.redlock.sentinel.*}, never together with {@code nodes}): the
 * one master a group of Redis Sentinels names is the only node (a quorum of one), followed across
 * failovers within each acquisition's wait. A failover can lose a grant that had not reached the
 * promoted replica; the promoted replica sits out the restart quarantine counted from the promotion
 * the Sentinels report, and the fence refuses an older holder whose grant was lost. See
 * docs/which-redis.md.
 *
 * <p>Cluster mode ({@code fencedlock.redlock.cluster.nodes}, never together with {@code nodes} or
 * the Sentinel keys): one Redis Cluster is the only node (a quorum of one); each lock's keys share
 * its hash slot, so locks spread over the shards and every script is single-slot, and a lock
 * follows its slot across reshardings and failovers within each acquisition's wait. The restart
 * quarantine is off in this mode and a grant lost in a failover is answered by the fence ({@link
 * RedlockSettings#clusterNodes()}). See docs/which-redis.md.
 *
 * <p>The restart quarantine keeps a node that restarted (and may have forgotten its locks) out of
 * the quorum until every lease it could have granted has run out. By default each node keeps a
 * record of the leases live on it (expiry and length, removed on release), every acquisition reads
 * it, and a restarted node stays out while a lease that may predate its restart is still live, and
 * at least for the client's {@code fencedlock.lease-time}; a ten-minute lease released long ago
 * keeps no one out. When {@code restart-quarantine} is configured positive, that fixed time applies
 * and a lease time, fixed lease or extension longer than it is rejected with an {@link
 * IllegalArgumentException}; {@code 0s} turns the quarantine off (development, or a deployment that
 * relies on the fence alone). The rules and what each assumes: {@code
 * dev.fencedlock.redlock.internal.Quarantine}, and docs/which-redis.md ("The restart quarantine").
 *
 * <p>One node
 * gives the single-instance lock of the Redis documentation (no fault tolerance). An even number of
 * nodes is accepted but tolerates no more failures than one node fewer (4 nodes need 3), so a
 * warning is logged. A node with a memory limit ({@code maxmemory}) and any {@code maxmemory-policy}
 * but {@code noeviction} could evict a held lock key or a token counter under memory pressure, so it
 * never counts toward a quorum; a warning names it when the client first connects to it (checked
 * with {@code INFO memory} on each new connection). {@code rediss://} nodes are verified against
 * the JVM's default trust store and the host name. Key layout: {@link RedlockKeys}. The algorithm,
 * the token argument and its assumptions are documented on {@code
 * dev.fencedlock.redlock.internal.RedlockLock}.
 *
 * <p>Thread-safe.
 */
public final class RedlockLocks {
    /** The value of {@code fencedlock.backend} that selects this backend. */
    public static final String BACKEND = "redlock";

    private RedlockLocks() {}

    /**
     * A client on the nodes {@code settings} name, every common setting at its default (lease time
     * 30s).
     *
     * @throws IllegalArgumentException if two nodes are one server under two names
     */
    public static LockClient create(RedlockSettings settings) {
        return create(LockConfig.builder().backend(BACKEND).build(), settings);
    }

    /**
     * A client on the nodes {@code settings} name, with {@code common}'s lease time, hold-time cap
     * and fallback.
     *
     * @throws IllegalArgumentException if {@code common} names another backend, two nodes are one
     *     server under two names, or a configured restart quarantine is shorter than the lease time
     */
    public static LockClient create(LockConfig common, RedlockSettings settings) {
        requireThisBackend(common, settings);
        return LockClients.create(common, runtime -> RedlockProviderFactory.create(settings, runtime));
    }

    /** As {@link #create(LockConfig, RedlockSettings)}, reporting to {@code listener}. */
    public static LockClient create(LockConfig common, RedlockSettings settings, LockEventListener listener) {
        requireThisBackend(common, settings);
        Objects.requireNonNull(listener, "listener");
        return LockClients.create(common, listener, runtime -> RedlockProviderFactory.create(settings, runtime));
    }

    private static void requireThisBackend(LockConfig common, RedlockSettings settings) {
        Objects.requireNonNull(common, "common");
        Objects.requireNonNull(settings, "settings");
        if (!BACKEND.equals(common.backend())) {
            throw new IllegalArgumentException(LockConfig.BACKEND + " must be '" + BACKEND
                    + "' for a client of RedlockLocks, got '" + common.backend() + "'");
        }
    }
}
