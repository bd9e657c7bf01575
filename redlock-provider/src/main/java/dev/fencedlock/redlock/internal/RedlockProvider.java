package dev.fencedlock.redlock.internal;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.FencedLock;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.LeaseRuntime;
import dev.fencedlock.spi.LockProvider;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.SslOptions;

/**
 * The {@code redlock} backend of one client: the nodes, their quarantine state, the token source
 * and the release hand-off, shared by every {@link RedlockLock} of the client. The algorithm itself
 * is in {@link RedlockLock}. Thread-safe.
 */
final class RedlockProvider implements LockProvider {
    private static final Logger log = LoggerFactory.getLogger(RedlockProvider.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    private static final int VALUE_BYTES = 16;
    private static final int CONNECT_QUEUE_PER_NODE = 64;

    private final LeaseRuntime runtime;
    private final List<RedisNode> nodes;
    private final List<NodeHealth> health;
    private final double driftFactor;
    private final long retryDelayNanos;
    private final Quarantine quarantine;
    private final RedlockKeys keys;
    private final FencingTokens tokens;
    private final Handoff handoff = new Handoff();
    private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final SecureRandom random = new SecureRandom();
    private final ThreadPoolExecutor executor;

    private RedlockProvider(RedlockSettings config, LeaseRuntime runtime, Options options) {
        this.runtime = runtime;
        this.driftFactor = config.driftFactor();
        this.retryDelayNanos = config.retryDelay().toNanos();
        List<RedisNodeAddress> addresses = config.nodes();
        this.keys = config.keys();
        boolean cluster = !config.clusterNodes().isEmpty();
        this.quarantine = new Quarantine(
                // a cluster runs without it: RedlockSettings.clusterNodes() says why
                cluster ? Duration.ZERO : config.restartQuarantine().orElse(null),
                runtime.leaseTime(),
                options.quarantineCoversLeases(),
                config.trustPersistentNodes(),
                Math.max(1, addresses.size()));
        this.tokens = new FencingTokens(options.wallClockMillis());
        this.executor = ioExecutor(Math.max(cluster ? 4 : 1, addresses.size()));
        List<RedisNode> allNodes = new ArrayList<>();
        List<NodeHealth> healths = new ArrayList<>();
        List<Supplier<Connection>> subscriberConnections = new ArrayList<>();
        List<Runnable> warmUps = new ArrayList<>();
        ReplicaAck ack = new ReplicaAck(config.waitReplicas(), (int) Math.max(
                1, Math.min(Integer.MAX_VALUE, config.waitReplicasTimeout().toMillis())));
        Function<RedisNodeAddress, JedisRedisNode> connect = address -> new JedisRedisNode(
                address, config.nodeTimeout(), options.tls(), runtime.clock(), executor, recordKeys(), ack);
        if (cluster) {
            Function<RedisNodeAddress, JedisRedisNode> connectMaster = address -> new JedisRedisNode(
                    address, config.nodeTimeout(), options.tls(), runtime.clock(), executor, null, ack);
            ClusterRedisNode node = new ClusterRedisNode(
                    config.clusterNodes(), config.nodeTimeout(), options.tls(), connectMaster, executor);
            allNodes.add(node);
            subscriberConnections.add(node::openDedicatedConnection);
            warmUps.add(node::warmUp);
        }
        if (config.sentinel().isPresent()) {
            SentinelRedisNode node = new SentinelRedisNode(
                    config.sentinel().get(), config.nodeTimeout(), options.tls(), connect, executor, runtime.clock());
            allNodes.add(node);
            subscriberConnections.add(node::openDedicatedConnection);
            warmUps.add(node::warmUp);
        }
        for (RedisNodeAddress address : addresses) {
            JedisRedisNode node = connect.apply(address);
            allNodes.add(node);
            subscriberConnections.add(node::openDedicatedConnection);
            warmUps.add(node::warmUp);
        }
        for (RedisNode node : allNodes) {
            healths.add(new NodeHealth(healths.size(), node.name()));
        }
        this.nodes = List.copyOf(allNodes);
        this.health = List.copyOf(healths);
        handoff.listenWith(new ReleaseSubscriber(
                keys,
                nodes.stream().map(RedisNode::name).toList(),
                subscriberConnections,
                handoff,
                runtime.scheduler()));
        if (!addresses.isEmpty() && addresses.size() % 2 == 0) {
            log.warn(
                    "{} lists {} nodes: a quorum of {} tolerates {} failed node(s), no more than {} nodes would",
                    RedlockSettings.NODES,
                    addresses.size(),
                    Votes.quorum(addresses.size()),
                    addresses.size() - Votes.quorum(addresses.size()),
                    addresses.size() - 1);
        }
        warmUp(warmUps, config.nodeTimeout());
    }

    /**
     * Connects to the nodes of {@code config}'s {@code fencedlock.redlock.*} keys for the leases of
     * {@code runtime}.
     *
     * @throws IllegalArgumentException as {@link RedlockSettings.Builder#build()}, or if a configured
     *     {@code fencedlock.redlock.restart-quarantine} is shorter than the lease time
     */
    static RedlockProvider create(LockConfig config, LeaseRuntime runtime, Options options) {
        Objects.requireNonNull(config, "config");
        return create(
                RedlockSettings.builder(config.settings(RedlockLocks.BACKEND)).build(), runtime, options);
    }

    /**
     * Connects to the nodes {@code settings} name for the leases of {@code runtime}.
     *
     * @throws IllegalArgumentException if two nodes are one server under two names, or a configured
     *     {@code fencedlock.redlock.restart-quarantine} is shorter than the lease time
     */
    static RedlockProvider create(RedlockSettings settings, LeaseRuntime runtime, Options options) {
        Objects.requireNonNull(settings, "settings");
        settings.requireIndependentNodes();
        return new RedlockProvider(settings, runtime, options);
    }

    /**
     * What tests may replace.
     *
     * @param tls for {@code rediss://} nodes; null for full verification against the JVM's default
     *     trust store
     * @param wallClockMillis the wall clock fencing-token proposals start from
     * @param quarantineCoversLeases whether leases longer than a configured restart quarantine are
     *     rejected ({@link Quarantine}); false only for tests that run a tiny quarantine on
     *     just-started servers
     */
    record Options(SslOptions tls, LongSupplier wallClockMillis, boolean quarantineCoversLeases) {
        static final Options DEFAULT = new Options(null, System::currentTimeMillis, true);

        Options withoutQuarantineCheck() {
            return new Options(tls, wallClockMillis, false);
        }
    }

    /**
     * Where connections are opened when a node has none idle ({@link JedisRedisNode}): {@code 2N}
     * threads and a bounded queue of {@value #CONNECT_QUEUE_PER_NODE} per node; a call it rejects
     * fails on that node at once, so a node coming back is not met by a pile of waiting connects.
     */
    private static ThreadPoolExecutor ioExecutor(int nodes) {
        int threads = Math.max(2, 2 * nodes);
        int client = INSTANCES.incrementAndGet();
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(
                threads,
                threads,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(CONNECT_QUEUE_PER_NODE * nodes),
                runnable -> {
                    Thread thread = new Thread(
                            runnable, "fencedlock-redlock-" + client + "-connect-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /**
     * Opens one connection per node before the first acquire, so that even a first {@code
     * tryAcquire(Duration.ZERO)} finds the pools warm and every node's incarnation known. Waits
     * briefly; an unreachable node is reported by the calls that need it.
     */
    private void warmUp(List<Runnable> warmUps, Duration nodeTimeout) {
        List<CompletableFuture<Void>> opening = new ArrayList<>();
        for (Runnable warmUp : warmUps) {
            opening.add(CompletableFuture.runAsync(warmUp, executor));
        }
        long waitMillis = Math.max(2_000, 4 * nodeTimeout.toMillis());
        try {
            CompletableFuture.allOf(opening.toArray(CompletableFuture[]::new)).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            log.debug("Not every Redis node was connected at start-up: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public FencedLock lock(String name) {
        return new RedlockLock(name, runtime, this);
    }

    /**
     * Asks every master at once with a script that touches no key ({@link RedisNode#probe}), then
     * reads what each reply means for the quorum, as an acquisition would: {@code ANSWERING}
     * (counts), {@code QUARANTINED} (restart quarantine), {@code EVICTING} (may evict keys) or
     * {@code FAILING} (no answer within the node timeout, or an error; the detail says which).
     * Returns within about one node timeout.
     *
     * <p>A Redis Cluster or a Sentinel group is one voter of the quorum. A cluster reports each
     * master of its slot map, its slots in the detail, and counts only while every master counts:
     * a lock's slot follows from its name, so while one master fails (or a cluster in {@code
     * cluster_state:fail} answers {@code CLUSTERDOWN}) some locks cannot be granted at all, and by
     * default ({@code cluster-require-full-coverage yes}) the cluster refuses every call.
     *
     * <p>{@code UP} when every voter counts, {@code DEGRADED} when a quorum does, else {@code DOWN}.
     */
    @Override
    public BackendStatus status(String backend) {
        long start = runtime.clock().nanoTime();
        List<RedisNode.Probe> probes = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            probes.add(node.probe());
        }
        List<BackendStatus.Node> reported = new ArrayList<>(nodes.size());
        int counting = 0;
        for (int i = 0; i < nodes.size(); i++) {
            boolean counts = true;
            for (RedisNode.Probed probed : probes.get(i).await()) {
                BackendStatus.Node node = nodeStatus(i, probed, start);
                counts &= node.state() == BackendStatus.NodeState.ANSWERING;
                reported.add(node);
            }
            counting += counts ? 1 : 0;
        }
        BackendStatus.State state = counting == nodes.size()
                ? BackendStatus.State.UP
                : counting >= Votes.quorum(nodes.size()) ? BackendStatus.State.DEGRADED : BackendStatus.State.DOWN;
        return new BackendStatus(backend, state, reported);
    }

    private BackendStatus.Node nodeStatus(int index, RedisNode.Probed probed, long start) {
        NodeReply reply = probed.reply();
        if (!reply.ok()) {
            return node(probed, BackendStatus.NodeState.FAILING, reply.failure().toString());
        }
        RuntimeException excluded = health.get(index)
                .exclusion(reply.instance(), start, runtime.clock().nanoTime(), quarantine);
        if (excluded == null) {
            return node(probed, BackendStatus.NodeState.ANSWERING, "");
        }
        BackendStatus.NodeState state = excluded instanceof EvictingNodeException
                ? BackendStatus.NodeState.EVICTING
                : BackendStatus.NodeState.QUARANTINED;
        return node(probed, state, String.valueOf(excluded.getMessage()));
    }

    /** The node's entry; a master's role (a cluster's slots) leads its detail. */
    private static BackendStatus.Node node(RedisNode.Probed probed, BackendStatus.NodeState state, String why) {
        String detail = probed.role().isEmpty() ? why : why.isEmpty() ? probed.role() : probed.role() + ": " + why;
        return new BackendStatus.Node(probed.master(), state, detail);
    }

    /**
     * The longest a lease the nodes granted, to any client, may still be valid: a configured
     * positive {@code restart-quarantine}; otherwise the larger of {@code fencedlock.lease-time} and
     * the longest-lived lease in the nodes' records of live leases as last read (and this client's
     * own grants since), the figure the restart quarantine uses ({@link Quarantine}). With the
     * quarantine off ({@code 0s}) the same figure as when it is unset. Never asks a node.
     *
     * <p>In Redis Cluster mode the records are per lock ({@link ClusterRedisNode}), so the figure
     * covers the lease time, this client's own grants and the locks whose records it last read; a
     * longer lease another client holds on a lock this client has not touched is not seen.
     */
    @Override
    public Optional<Duration> longestOutstandingLease() {
        return Optional.of(
                Duration.ofNanos(quarantine.outstandingNanos(runtime.clock().nanoTime())));
    }

    /** The keys of the records of live leases, as the scripts take them after a lock key. */
    byte[][] recordKeys() {
        return new byte[][] {
            keys.leaseExpiries().getBytes(StandardCharsets.UTF_8),
            keys.leaseLengths().getBytes(StandardCharsets.UTF_8)
        };
    }

    RedlockKeys keys() {
        return keys;
    }

    List<RedisNode> nodes() {
        return nodes;
    }

    List<NodeHealth> health() {
        return health;
    }

    double driftFactor() {
        return driftFactor;
    }

    long retryDelayNanos() {
        return retryDelayNanos;
    }

    Quarantine quarantine() {
        return quarantine;
    }

    FencingTokens tokens() {
        return tokens;
    }

    Handoff handoff() {
        return handoff;
    }

    /** A fresh lock value: {@value #VALUE_BYTES} bytes from a CSPRNG, hex-encoded. */
    byte[] newValue() {
        byte[] raw = new byte[VALUE_BYTES];
        random.nextBytes(raw);
        byte[] hex = new byte[2 * raw.length];
        for (int i = 0; i < raw.length; i++) {
            hex[2 * i] = HEX_DIGITS[(raw[i] >> 4) & 0xf];
            hex[2 * i + 1] = HEX_DIGITS[raw[i] & 0xf];
        }
        return hex;
    }

    @Override
    public void close() {
        handoff.close();
        executor.shutdownNow();
        for (RedisNode node : nodes) {
            node.close();
        }
    }

    @Override
    public String toString() {
        return "RedlockProvider" + nodes.stream().map(RedisNode::name).toList();
    }
}
