package dev.fencedlock.redlock;

import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.internal.RedlockProvider;
import dev.fencedlock.spi.BackendSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import dev.fencedlock.spi.LockProviderFactory;
import java.util.Set;

/**
 * The {@code redlock} backend: Redlock over N independent Redis masters, with a fencing token on
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
 * dev.fencedlock.redlock.internal.Quarantine}, and docs/reliability.md.
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
 * <p>Thread-safe; found by {@link java.util.ServiceLoader}.
 */
public final class RedlockProviderFactory implements LockProviderFactory {
    public static final String BACKEND = "redlock";

    @Override
    public String backend() {
        return BACKEND;
    }

    @Override
    public Set<String> keys() {
        return RedlockSettings.KEYS;
    }

    /** Parses every value with {@link RedlockSettings#from}. */
    @Override
    public void validate(BackendSettings settings) {
        RedlockSettings.from(settings);
    }

    /**
     * @throws IllegalArgumentException if none of {@code fencedlock.redlock.nodes}, the Sentinel keys
     *     and {@code fencedlock.redlock.cluster.nodes} is set, one Sentinel key lacks its partner, or {@code
     *     fencedlock.redlock.restart-quarantine} is configured shorter than {@code fencedlock.lease-time}
     */
    @Override
    public LockProvider create(LockConfig config, LeaseRuntime runtime) {
        return RedlockProvider.create(config, runtime);
    }
}
