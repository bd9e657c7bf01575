package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The master a group of Redis Sentinels names, as one {@link RedisNode}: everything that differs
 * for a Sentinel deployment is here, and the Redlock algorithm ({@link RedlockLock}) sees one node
 * whose quorum is itself.
 *
 * <ol>
 *   <li>The master's address comes from {@code SENTINEL get-master-addr-by-name}, asking the
 *       Sentinels in the configured order until one answers (each within the node timeout).
 *   <li>Calls go to a {@link JedisRedisNode} for that address. A failed reply (the master died, a
 *       demoted master answers {@code READONLY}, a timeout) and, under traffic, every {@value
 *       #REFRESH_MILLIS} ms start one new lookup on the shared executor, never on the caller.
 *   <li>When the Sentinels name another address (a failover), a new {@link JedisRedisNode} takes
 *       the calls and the old one is closed (its calls in flight fail). The new master answers with
 *       a new {@code run_id} and replication id, so {@link NodeHealth} sees a new incarnation, and
 *       a promoted replica ({@code master_replid2} set) is dated from its first probe: it sits out
 *       the restart quarantine, because replication is asynchronous and it may lack the last grants
 *       of the old master ({@link RedisInstance#fromInfo(String, String, long)}).
 *   <li>The promotion itself is dated by the Sentinels: {@code SENTINEL MASTER} reports {@code
 *       role-reported-time}, the milliseconds since the Sentinel switched to this master (or last
 *       saw its role change), which is no earlier than the promotion. A reply of a promoted master
 *       is credited with that start ({@link RedisInstance#promotedBy}) when the reading was taken
 *       after the connection's probe, so it is about that incarnation or a later one. So a client
 *       that starts long after a failover does not sit out a lease time on a master that was
 *       promoted long ago, and one that watched the failover counts from the switch.
 * </ol>
 *
 * <p>An acquisition retries every {@code retry-delay} within its wait, so it is granted on the new
 * master once the Sentinels have promoted it, the lookup has seen it and its quarantine (if any)
 * has passed. Thread-safe.
 */
final class SentinelRedisNode implements RedisNode {
    private static final Logger log = LoggerFactory.getLogger(SentinelRedisNode.class);
    static final long REFRESH_MILLIS = 1_000;

    private record Current(HostAndPort address, JedisRedisNode node) {}

    /** A Sentinel's word that {@code address} became master no later than {@code promotedAtNanos}. */
    private record Dating(HostAndPort address, long promotedAtNanos, long readAtNanos) {}

    private final RedlockSettings.Sentinel sentinel;
    private final String name;
    private final int timeoutMillis;
    private final SslOptions tls;
    private final Function<RedisNodeAddress, JedisRedisNode> connect;
    private final MonotonicClock clock;
    private final SingleFlight lookups;
    private final Object swap = new Object();
    private final Object lookup = new Object();
    /** One per Sentinel, in order; null until used and after a failure. Guarded by {@link #lookup}. */
    private final Jedis[] sentinelConnections;

    private volatile Current current;
    private volatile long resolvedAtNanos;
    private volatile Dating dating;
    private volatile boolean closed;

    /**
     * @param timeout the node timeout, also the connect and response timeout of each Sentinel
     * @param tls for {@code rediss://} Sentinels and data nodes; null for full verification
     * @param connect opens the node for one data-node address
     * @param executor where lookups run
     * @param clock the clock the data nodes' probes are timed on
     */
    SentinelRedisNode(
            RedlockSettings.Sentinel sentinel,
            Duration timeout,
            SslOptions tls,
            Function<RedisNodeAddress, JedisRedisNode> connect,
            Executor executor,
            MonotonicClock clock) {
        this.sentinel = sentinel;
        this.name = "master '" + sentinel.master() + "' of Sentinels "
                + sentinel.sentinels().stream()
                        .map(s -> s.host() + ":" + s.port())
                        .toList();
        this.timeoutMillis = NodeTimeout.ofNanos(timeout.toNanos()).millis();
        this.tls = tls;
        this.connect = connect;
        this.lookups = new SingleFlight(executor, this::resolve);
        this.clock = clock;
        this.sentinelConnections = new Jedis[sentinel.sentinels().size()];
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Pending send(Script script, byte[][] keys, byte[][] args) {
        Current now = currentOrRefresh();
        if (now == null) {
            return () -> NodeReply.failed(noMaster());
        }
        Pending pending = now.node().send(script, keys, args);
        return () -> checked(pending.await(), now.address());
    }

    /** The status probe on the master the Sentinels name now, whose address the entry's role gives. */
    @Override
    public Probe probe() {
        Current now = currentOrRefresh();
        if (now == null) {
            return () -> List.of(new Probed(name, "", NodeReply.failed(noMaster())));
        }
        Pending pending = now.node().send(Script.PING, new byte[0][], new byte[0][]);
        String role = "master at " + now.address();
        return () -> List.of(new Probed(name, role, checked(pending.await(), now.address())));
    }

    @Override
    public CompletableFuture<NodeReply> submit(Script script, byte[][] keys, byte[][] args) {
        Current now = currentOrRefresh();
        if (now == null) {
            return CompletableFuture.completedFuture(NodeReply.failed(noMaster()));
        }
        return now.node().submit(script, keys, args).thenApply(reply -> checked(reply, now.address()));
    }

    /** Looks the master up again after a failure; dates a promoted master's reply by the Sentinels. */
    private NodeReply checked(NodeReply reply, HostAndPort address) {
        if (!reply.ok()) {
            refresh();
            return reply;
        }
        Dating known = dating;
        RedisInstance instance = reply.instance();
        if (known == null
                || !instance.promoted()
                || !known.address().equals(address)
                || known.readAtNanos() - instance.probedAtNanos() <= 0) {
            return reply;
        }
        return reply.withInstance(instance.promotedBy(known.promotedAtNanos()));
    }

    private Current currentOrRefresh() {
        Current now = current;
        if (now == null || System.nanoTime() - resolvedAtNanos > REFRESH_MILLIS * 1_000_000L) {
            refresh();
        }
        return now;
    }

    private JedisConnectionException noMaster() {
        return new JedisConnectionException("no Sentinel has named the " + name + " yet");
    }

    /** Starts one lookup on the executor unless one is running. Never blocks. */
    private void refresh() {
        if (!closed) {
            lookups.request();
        }
    }

    /**
     * Asks the Sentinels for the master and switches to it if it moved. Blocks for up to one node
     * timeout per Sentinel asked (connect and reply). One lookup at a time; each Sentinel's
     * connection is kept for the next lookup and replaced when it fails.
     */
    void resolve() {
        synchronized (lookup) {
            try {
                lookUp();
            } finally {
                if (closed) {
                    closeSentinelConnections(); // also one opened while close() ran
                }
            }
        }
    }

    private void lookUp() {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < sentinelConnections.length && !closed; i++) {
            RedisNodeAddress address = sentinel.sentinels().get(i);
            HostAndPort named;
            try {
                if (sentinelConnections[i] == null) {
                    sentinelConnections[i] = new Jedis(
                            new HostAndPort(address.host(), address.port()),
                            JedisRedisNode.clientConfig(address, timeoutMillis, tls));
                }
                Jedis jedis = sentinelConnections[i];
                List<String> reply = jedis.sentinelGetMasterAddrByName(sentinel.master());
                if (reply == null || reply.size() != 2) {
                    failures.add(address + ": does not know master '" + sentinel.master() + "'");
                    continue;
                }
                named = new HostAndPort(reply.get(0), Integer.parseInt(reply.get(1)));
                readPromotion(jedis, named);
            } catch (RuntimeException e) {
                failures.add(address + ": " + e);
                closeQuietly(sentinelConnections[i]);
                sentinelConnections[i] = null;
                continue;
            }
            resolvedAtNanos = System.nanoTime();
            switchTo(named);
            return;
        }
        // the next lookup under traffic waits its turn; a failed reply still asks at once
        resolvedAtNanos = System.nanoTime();
        log.debug("No Sentinel named the {}: {}", name, failures);
    }

    private static void closeQuietly(Jedis jedis) {
        if (jedis != null) {
            try {
                jedis.close();
            } catch (RuntimeException e) {
                // gone either way
            }
        }
    }

    /**
     * Reads how long ago the Sentinel switched to {@code named} ({@code role-reported-time}, whole
     * milliseconds, reset when it switches master or sees the role change). The switch follows the
     * promotion, and the Sentinel measured before this client read the reply, so {@code read -
     * age + 1 ms} is no earlier than the promotion.
     */
    private void readPromotion(Jedis jedis, HostAndPort named) {
        Dating read = null;
        try {
            Map<String, String> master = jedis.sentinelMaster(sentinel.master());
            long readAt = clock.nanoTime();
            String age = master.get("role-reported-time");
            if (age != null
                    && "master".equals(master.get("role-reported"))
                    && named.getHost().equals(master.get("ip"))
                    && String.valueOf(named.getPort()).equals(master.get("port"))) {
                read = new Dating(named, readAt - (Long.parseLong(age) - 1) * 1_000_000L, readAt);
            }
        } catch (RuntimeException e) {
            log.debug("No promotion time from a Sentinel of the {}: {}", name, e.toString());
        }
        dating = read; // none: a promoted master is dated from the probe, as without Sentinel
    }

    private void switchTo(HostAndPort named) {
        JedisRedisNode retired = null;
        JedisRedisNode node;
        synchronized (swap) {
            Current now = current;
            if (closed || (now != null && now.address().equals(named))) {
                return;
            }
            node = connect.apply(sentinel.dataNode(named.getHost(), named.getPort()));
            current = new Current(named, node);
            if (now != null) {
                retired = now.node();
                log.info("The Sentinels name {} as the {} now (was {})", named, name, now.address());
            }
        }
        node.warmUp();
        if (retired != null) {
            retired.close();
        }
    }

    /**
     * Looks the master up and opens one connection to it, before the first call; then asks again,
     * so that the Sentinels' dating of a promotion is read after that connection's probe.
     */
    void warmUp() {
        resolve();
        resolve();
    }

    /** A connection outside the pool to the master named now, for the release subscriber. */
    Connection openDedicatedConnection() {
        Current now = current;
        if (now == null) {
            refresh();
            throw noMaster();
        }
        return now.node().openDedicatedConnection();
    }

    @Override
    public void close() {
        synchronized (swap) {
            closed = true;
            Current now = current;
            if (now != null) {
                now.node().close();
            }
        }
        // not under the lookup lock: a lookup in progress fails on the closed connection instead,
        // and closes what it opened meanwhile
        closeSentinelConnections();
    }

    private void closeSentinelConnections() {
        for (Jedis connection : sentinelConnections.clone()) {
            closeQuietly(connection);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
