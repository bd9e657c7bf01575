package dev.fencedlock.redlock.internal;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * One Redis Cluster as one {@link RedisNode}: every call goes to the master that owns the hash
 * slot of its first key, so locks spread over the shards and the algorithm ({@link RedlockLock})
 * sees one node whose quorum is itself.
 *
 * <ol>
 *   <li>The slot map comes from {@code CLUSTER SLOTS}, asking the known masters and then the seeds
 *       until one answers (each within the node timeout). Calls go to a {@link JedisRedisNode} per
 *       master address.
 *   <li>Every key a script touches carries the lock's hash tag ({@code <prefix>{<name>}:...}), so
 *       each call is single-slot. The per-node records of live leases that the scripts also update
 *       ({@code <prefix>lease-expiries}, {@code lease-lengths}) are replaced by records of the lock
 *       itself in its own slot ({@code <lock key>:lease-expiries}); a released lease empties them,
 *       and Redis drops an empty set. They feed no quarantine: a cluster runs with the restart
 *       quarantine off ({@link RedlockSettings#clusterNodes()}).
 *   <li>A failed reply ({@code MOVED} after a resharding or a failover, {@code CLUSTERDOWN}, a
 *       dead master, a timeout) starts one new lookup on the shared executor, never on the caller;
 *       a {@code MOVED} reply also points its slot at the named master at once. The call is not
 *       repeated here: an acquisition retries every {@code retry-delay} within its wait, so it is
 *       granted on the slot's new owner once the lookup has seen it.
 *   <li>While a slot migrates ({@code CLUSTER SETSLOT ... MIGRATING/IMPORTING}, {@code MIGRATE}),
 *       its old owner answers {@code ASK <slot> <host>:<port>} for a call none of whose keys it
 *       still has. That reply is followed once: {@code ASKING} and the same call on one connection
 *       to the named node, within the node timeout of the first send, the slot map unchanged. A
 *       call whose keys are split between the two nodes gets {@code TRYAGAIN} from either; it is a
 *       failed reply, retried by the acquisition every {@code retry-delay} within its wait. Redis
 *       itself keeps this safe: a script runs on a migrating slot only where every key it names is
 *       (the old owner) or, after {@code ASKING}, where every key it names is (the new owner; a
 *       script of one key also where it is missing, as it is then nowhere). So no node grants a lock
 *       whose key or counter is elsewhere, and a counter never sits on two nodes. Acquiring a lock
 *       that is free needs its lock key, which a free lock lacks, so that waits until the migration
 *       ends; a held lock stays held, and its holder extends and releases it where its keys are.
 *       (A script that empties a key on the old owner may not touch it again: the scripts check.)
 *   <li>A master the map no longer names is closed after the lookup, unless an {@code ASK} named
 *       it within {@value #ASKED_KEEP_MILLIS} ms (a new master importing its first slot).
 *   <li>Replies are credited to one incarnation of the whole cluster, so {@link NodeHealth} does
 *       not take a reply from another shard for a restart; a shard that may evict keys still makes
 *       its replies count for nothing.
 * </ol>
 *
 * <p>Thread-safe.
 */
final class ClusterRedisNode implements RedisNode {
    private static final Logger log = LoggerFactory.getLogger(ClusterRedisNode.class);
    static final int SLOTS = 16_384;
    static final long REFRESH_MILLIS = 1_000;
    static final long ASKED_KEEP_MILLIS = 30_000;
    private static final byte[][] RECORD_SUFFIXES = {
        ":lease-expiries".getBytes(StandardCharsets.UTF_8), ":lease-lengths".getBytes(StandardCharsets.UTF_8)
    };

    /** Which master serves each slot; null entries for slots no master serves. */
    private record SlotMap(HostAndPort[] owners) {}

    private final List<RedisNodeAddress> seeds;
    private final String name;
    private final int timeoutMillis;
    private final SslOptions tls;
    private final Function<RedisNodeAddress, JedisRedisNode> connect;
    private final SingleFlight lookups;
    private final Map<HostAndPort, JedisRedisNode> masters = new HashMap<>(); // guarded by itself
    /** When each node was last named by an {@code ASK}: an importing node may own no slot yet. */
    private final Map<HostAndPort, Long> askedAtNanos = new ConcurrentHashMap<>();

    private final String runId = "cluster-" + Long.toHexString(System.nanoTime());
    private final long startedAtNanos = System.nanoTime();

    private final AtomicLong mapsRead = new AtomicLong();

    private volatile SlotMap slots = new SlotMap(new HostAndPort[SLOTS]);
    private volatile long resolvedAtNanos;
    private volatile boolean closed;

    /**
     * @param seeds the configured seed nodes, asked for the slot map
     * @param timeout the node timeout, also the connect and response timeout of each lookup
     * @param tls for {@code rediss://} seeds; null for full verification
     * @param connect opens the node for one master's address
     * @param executor where lookups run
     */
    ClusterRedisNode(
            List<RedisNodeAddress> seeds,
            Duration timeout,
            SslOptions tls,
            Function<RedisNodeAddress, JedisRedisNode> connect,
            Executor executor) {
        this.seeds = List.copyOf(seeds);
        this.name = "Redis Cluster of seeds "
                + seeds.stream().map(s -> s.host() + ":" + s.port()).toList();
        this.timeoutMillis = NodeTimeout.ofNanos(timeout.toNanos()).millis();
        this.tls = tls;
        this.connect = connect;
        this.lookups = new SingleFlight(executor, this::resolve);
    }

    @Override
    public String name() {
        return name;
    }

    /** The slot of a call's first key; slot 0 for a call without keys (the status probe). */
    static int slotOf(byte[][] keys) {
        return keys.length == 0 ? 0 : JedisClusterCRC16.getSlot(keys[0]);
    }

    /**
     * Sends to the slot's master; an {@code ASK} reply is followed once, on the caller's thread, by
     * {@code ASKING} and the same call to the node it names, awaited until one node timeout after
     * this send.
     */
    @Override
    public Pending send(Script script, byte[][] keys, byte[][] args) {
        long sentAt = System.nanoTime();
        JedisRedisNode node = nodeFor(keys);
        if (node == null) {
            return () -> NodeReply.failed(unserved(keys));
        }
        byte[][] routed = inSlot(script, keys);
        Pending pending = node.send(script, routed, args);
        return () -> {
            NodeReply reply = pending.await();
            JedisRedisNode asked = askedTo(reply);
            if (asked != null) {
                reply = asked.sendAsking(script, routed, args, sentAt).await();
            }
            return checked(reply);
        };
    }

    /**
     * Probes every master of the slot map as last read (a lookup starts if it is older than
     * {@value #REFRESH_MILLIS} ms) with {@link Script#PING} on a key of a slot it serves, so a
     * master answers as it would a lock call: a dead or frozen master fails within the node timeout,
     * and a master of a cluster in {@code cluster_state:fail} answers {@code CLUSTERDOWN}. Slots no
     * master serves are one failed entry naming them. The entries are in slot order, each naming
     * the master's slot ranges.
     */
    @Override
    public Probe probe() {
        if (System.nanoTime() - resolvedAtNanos > REFRESH_MILLIS * 1_000_000L) {
            refresh();
        }
        HostAndPort[] owners = slots.owners();
        Map<HostAndPort, List<String>> ranges = new LinkedHashMap<>();
        Map<HostAndPort, Integer> firstSlots = new LinkedHashMap<>();
        List<String> unserved = new ArrayList<>();
        int start = 0;
        for (int slot = 1; slot <= SLOTS; slot++) {
            if (slot < SLOTS && Objects.equals(owners[slot], owners[start])) {
                continue;
            }
            String range = start == slot - 1 ? String.valueOf(start) : start + "-" + (slot - 1);
            HostAndPort owner = owners[start];
            if (owner == null) {
                unserved.add(range);
            } else {
                ranges.computeIfAbsent(owner, o -> new ArrayList<>()).add(range);
                firstSlots.putIfAbsent(owner, start);
            }
            start = slot;
        }
        List<Supplier<Probed>> probes = new ArrayList<>();
        for (Map.Entry<HostAndPort, List<String>> entry : ranges.entrySet()) {
            String role = "slots " + String.join(",", entry.getValue());
            JedisRedisNode node = master(entry.getKey());
            String address = dataNode(entry.getKey()).toString();
            if (node == null) {
                probes.add(() -> new Probed(address, role, NodeReply.failed(closedFailure())));
                continue;
            }
            byte[][] key = {keyInSlot(firstSlots.get(entry.getKey()))};
            Pending pending = node.send(Script.PING, key, new byte[0][]);
            probes.add(() -> new Probed(address, role, checked(pending.await())));
        }
        if (!unserved.isEmpty()) {
            String role = "slots " + String.join(",", unserved);
            probes.add(() -> new Probed(
                    name, role, NodeReply.failed(new JedisConnectionException("no master serves these slots"))));
        }
        return () -> probes.stream().map(Supplier::get).toList();
    }

    private JedisConnectionException closedFailure() {
        return new JedisConnectionException("the client of the " + name + " is closed");
    }

    /**
     * A key whose hash slot is {@code slot}: a hash tag of the smallest decimal number that hashes
     * there, found once for all slots (about 10^5 checksums, on first use).
     */
    static byte[] keyInSlot(int slot) {
        return SlotKeys.KEYS[slot];
    }

    /** The keys of {@link #keyInSlot}, built when first asked for. */
    private static final class SlotKeys {
        static final byte[][] KEYS = build();

        private static byte[][] build() {
            byte[][] keys = new byte[SLOTS][];
            int found = 0;
            for (int tag = 0; found < SLOTS; tag++) {
                byte[] key = ("fencedlock-status-{" + tag + "}").getBytes(StandardCharsets.UTF_8);
                int slot = JedisClusterCRC16.getSlot(key);
                if (keys[slot] == null) {
                    keys[slot] = key;
                    found++;
                }
            }
            return keys;
        }
    }

    /**
     * Queues on the slot's master; an {@code ASK} reply is followed once by {@code ASKING} and the
     * same call queued on the node it names, so the future completes within about four node
     * timeouts instead of two.
     */
    @Override
    public CompletableFuture<NodeReply> submit(Script script, byte[][] keys, byte[][] args) {
        JedisRedisNode node = nodeFor(keys);
        if (node == null) {
            return CompletableFuture.completedFuture(NodeReply.failed(unserved(keys)));
        }
        byte[][] routed = inSlot(script, keys);
        return node.submit(script, routed, args)
                .thenCompose(reply -> {
                    JedisRedisNode asked = askedTo(reply);
                    return asked == null
                            ? CompletableFuture.completedFuture(reply)
                            : asked.submitAsking(script, routed, args);
                })
                .thenApply(this::checked);
    }

    /**
     * The node an {@code ASK <slot> <host>:<port>} reply names (the slot is migrating and the keys
     * are not on the node asked), or null for any other reply. The slot map stays as it is: the
     * slot still belongs to the node asked until the migration ends.
     */
    private JedisRedisNode askedTo(NodeReply reply) {
        if (!reply.ok() && reply.failure() instanceof JedisAskDataException ask) {
            askedAtNanos.put(ask.getTargetNode(), System.nanoTime());
            return master(ask.getTargetNode());
        }
        return null;
    }

    /**
     * The keys with the node-wide records of live leases (the last two keys of {@link
     * Script#ACQUIRE} and {@link Script#RELEASE}) replaced by the lock's own, in its slot, and the
     * same two added after the lock key of an {@link Script#EXTEND}, which the pipeline would have
     * added to a batch ({@link NodePipeline} batches no extension in a cluster).
     */
    static byte[][] inSlot(Script script, byte[][] keys) {
        byte[][] routed;
        if ((script == Script.ACQUIRE || script == Script.RELEASE) && keys.length >= 3) {
            routed = keys.clone();
        } else if (script == Script.EXTEND && keys.length == 1) {
            routed = Arrays.copyOf(keys, 3);
        } else {
            return keys;
        }
        for (int i = 0; i < 2; i++) {
            byte[] suffix = RECORD_SUFFIXES[i];
            byte[] key = Arrays.copyOf(keys[0], keys[0].length + suffix.length);
            System.arraycopy(suffix, 0, key, keys[0].length, suffix.length);
            routed[routed.length - 2 + i] = key;
        }
        return routed;
    }

    private JedisConnectionException unserved(byte[][] keys) {
        return new JedisConnectionException("no master of the " + name + " is known for slot " + slotOf(keys) + " yet");
    }

    /**
     * Credits a reply to the cluster's incarnation; learns from MOVED and looks up after a failure,
     * except after {@code TRYAGAIN} (and an {@code ASK} not followed): a slot migrating is no sign of
     * a stale map.
     */
    private NodeReply checked(NodeReply reply) {
        if (!reply.ok()) {
            learnMoved(reply.failure());
            if (!migrating(reply.failure())) {
                refresh();
            }
            return reply;
        }
        RedisInstance shard = reply.instance();
        return reply.withInstance(
                new RedisInstance(runId, startedAtNanos, startedAtNanos, shard.evictionPolicy(), false, false));
    }

    /**
     * Whether the failure is a slot's migration showing: {@code ASK}, or {@code TRYAGAIN} (a script
     * whose keys are split between the two nodes of a migrating slot, so that neither may run it).
     */
    static boolean migrating(RuntimeException failure) {
        String message = failure.getMessage();
        return failure instanceof JedisAskDataException || (message != null && message.startsWith("TRYAGAIN"));
    }

    /** Points the slot of a {@code MOVED <slot> <host>:<port>} error at the master it names. */
    private void learnMoved(RuntimeException failure) {
        String message = failure.getMessage();
        if (message == null || !message.startsWith("MOVED ")) {
            return;
        }
        String[] parts = message.split(" ");
        if (parts.length < 3) {
            return;
        }
        try {
            int slot = Integer.parseInt(parts[1]);
            HostAndPort target = HostAndPort.from(parts[2]);
            HostAndPort[] owners = slots.owners().clone();
            owners[slot] = target;
            slots = new SlotMap(owners);
        } catch (RuntimeException e) {
            log.debug("Unreadable redirection from the {}: {}", name, message);
        }
    }

    private JedisRedisNode nodeFor(byte[][] keys) {
        if (System.nanoTime() - resolvedAtNanos > REFRESH_MILLIS * 1_000_000L) {
            refresh();
        }
        HostAndPort owner = slots.owners()[slotOf(keys)];
        return owner == null ? null : master(owner);
    }

    private JedisRedisNode master(HostAndPort address) {
        synchronized (masters) {
            if (closed) {
                return null;
            }
            return masters.computeIfAbsent(address, a -> connect.apply(dataNode(a)));
        }
    }

    /** A master at {@code address} with the first seed's credentials and TLS. */
    private RedisNodeAddress dataNode(HostAndPort address) {
        RedisNodeAddress first = seeds.get(0);
        StringBuilder uri = new StringBuilder(first.tls() ? "rediss://" : "redis://");
        first.password().ifPresent(password -> {
            first.user().ifPresent(uri::append);
            uri.append(':').append(password).append('@');
        });
        String host = address.getHost();
        uri.append(host.contains(":") ? "[" + host + "]" : host).append(':').append(address.getPort());
        return RedisNodeAddress.parse(RedlockSettings.CLUSTER_NODES, uri.toString());
    }

    /** Starts one lookup on the executor unless one is running. Never blocks. */
    private void refresh() {
        if (!closed) {
            lookups.request();
        }
    }

    /**
     * Reads the slot map from the first node that answers {@code CLUSTER SLOTS}: the masters known
     * now, then the seeds. Blocks for up to two node timeouts (connect and reply) per node asked.
     */
    void resolve() {
        List<HostAndPort> candidates = new ArrayList<>();
        for (HostAndPort owner : slots.owners()) {
            if (owner != null && !candidates.contains(owner)) {
                candidates.add(owner);
            }
        }
        for (RedisNodeAddress seed : seeds) {
            HostAndPort address = new HostAndPort(seed.host(), seed.port());
            if (!candidates.contains(address)) {
                candidates.add(address);
            }
        }
        List<String> failures = new ArrayList<>();
        for (HostAndPort candidate : candidates) {
            if (closed) {
                return;
            }
            try (Jedis jedis =
                    new Jedis(candidate, JedisRedisNode.clientConfig(dataNode(candidate), timeoutMillis, tls))) {
                slots = parse(jedis.clusterSlots(), candidate.getHost());
                resolvedAtNanos = System.nanoTime();
                retireFormerMasters();
                mapsRead.incrementAndGet();
                return;
            } catch (RuntimeException e) {
                failures.add(candidate + ": " + e);
            }
        }
        resolvedAtNanos = System.nanoTime();
        log.debug("No node of the {} gave its slot map: {}", name, failures);
    }

    /**
     * Closes the nodes of addresses that own no slot in the map just read (a failed master, a
     * master whose slots all moved away), so that their connections and pipeline thread go; a later
     * map that names the address again opens a new one. Their calls in flight fail. A node an
     * {@code ASK} named within the last {@value #ASKED_KEEP_MILLIS} ms is kept: a new master being
     * filled by a resharding owns no slot until its first migration ends.
     */
    private void retireFormerMasters() {
        Set<HostAndPort> owners = new HashSet<>(Arrays.asList(slots.owners()));
        long now = System.nanoTime();
        askedAtNanos.values().removeIf(at -> now - at > ASKED_KEEP_MILLIS * 1_000_000L);
        owners.addAll(askedAtNanos.keySet());
        List<JedisRedisNode> retired = new ArrayList<>();
        synchronized (masters) {
            masters.entrySet().removeIf(entry -> {
                if (owners.contains(entry.getKey())) {
                    return false;
                }
                retired.add(entry.getValue());
                return true;
            });
        }
        retired.forEach(JedisRedisNode::close);
        if (!retired.isEmpty()) {
            log.info(
                    "The {} no longer names {} as a master",
                    name,
                    retired.stream().map(JedisRedisNode::name).toList());
        }
    }

    /**
     * A {@code CLUSTER SLOTS} reply: {@code [start, end, [host, port, id, ...], replicas...]...},
     * read from a node at {@code askedHost}. An empty host is Redis saying "the host you asked" (a
     * node that never learned its own address, as in a one-master cluster formed without {@code
     * cluster-announce-ip}); {@code ?} (an unknown endpoint) leaves its slots without a master, so
     * their calls fail and a later lookup tries again.
     */
    private static SlotMap parse(List<Object> reply, String askedHost) {
        HostAndPort[] owners = new HostAndPort[SLOTS];
        for (Object entry : reply) {
            List<?> range = (List<?>) entry;
            int start = ((Long) range.get(0)).intValue();
            int end = ((Long) range.get(1)).intValue();
            List<?> master = (List<?>) range.get(2);
            String host = text(master.get(0));
            if (host.equals("?")) {
                continue;
            }
            int port = ((Long) master.get(1)).intValue();
            HostAndPort owner = new HostAndPort(host.isEmpty() ? askedHost : host, port);
            Arrays.fill(owners, start, end + 1, owner);
        }
        return new SlotMap(owners);
    }

    private static String text(Object value) {
        return value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
    }

    /** How many slot maps were read so far, for tests. */
    long lookups() {
        return mapsRead.get();
    }

    /** The masters this node keeps connections to now, by address, for tests. */
    Map<HostAndPort, JedisRedisNode> connectedMasters() {
        synchronized (masters) {
            return Map.copyOf(masters);
        }
    }

    /** The master of each slot as last read (null: none known), for tests. */
    HostAndPort[] slotOwners() {
        return slots.owners().clone();
    }

    /** Reads the slot map and opens one connection to each master, before the first call. */
    void warmUp() {
        resolve();
        for (HostAndPort owner : new LinkedHashSet<>(Arrays.asList(slots.owners()))) {
            if (owner != null) {
                JedisRedisNode node = master(owner);
                if (node != null) {
                    node.warmUp();
                }
            }
        }
    }

    /**
     * A connection outside the pool to a master of the cluster, for the release subscriber: a
     * release published on any node of a cluster reaches the subscribers of every node.
     */
    Connection openDedicatedConnection() {
        JedisRedisNode node = nodeFor(new byte[0][]);
        if (node == null) {
            refresh();
            throw new JedisConnectionException("no master of the " + name + " is known yet");
        }
        return node.openDedicatedConnection();
    }

    @Override
    public void close() {
        List<JedisRedisNode> open;
        synchronized (masters) {
            closed = true;
            open = new ArrayList<>(masters.values());
            masters.clear();
        }
        open.forEach(JedisRedisNode::close);
    }

    @Override
    public String toString() {
        return name;
    }
}
