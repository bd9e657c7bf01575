package dev.fencedlock.testkit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of masters (replicas and masters without slots on request, {@link #addReplica},
 * {@link #addEmptyMaster}), each a {@link RedisServerProcess} with {@code
 * cluster-enabled yes} on a free port: the 16384 slots are split evenly in order ({@code CLUSTER
 * ADDSLOTSRANGE}), the nodes meet ({@code CLUSTER MEET}) and {@link #start} returns once every
 * node reports {@code cluster_state:ok} and knows every other. Closing stops every server by its
 * PID. Not thread-safe.
 */
public final class RedisCluster implements AutoCloseable {
    public static final int SLOTS = 16_384;
    private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(20);

    private final RedisServers servers;
    /** The nodes added after the cluster formed: replicas and masters without slots. */
    private final List<RedisServerProcess> added = new ArrayList<>();
    /** The masters among {@link #added}. */
    private final List<RedisServerProcess> addedMasters = new ArrayList<>();

    private RedisCluster(RedisServers servers) {
        this.servers = servers;
    }

    private static RedisServerProcess.Builder clusterNode(RedisServerProcess.Builder options) {
        return options.arguments(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000");
    }

    /** Starts {@code masters} masters (at least one) and forms the cluster. */
    public static RedisCluster start(int masters) {
        RedisServers servers = RedisServers.start(masters, RedisCluster::clusterNode);
        RedisCluster cluster = new RedisCluster(servers);
        try {
            cluster.form();
        } catch (RuntimeException | InterruptedException e) {
            cluster.close();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("the Redis Cluster did not form: " + e, e);
        }
        return cluster;
    }

    private void form() throws InterruptedException {
        int n = servers.size();
        for (int i = 0; i < n; i++) {
            int first = SLOTS * i / n;
            int last = SLOTS * (i + 1) / n - 1;
            servers.get(i).command("CLUSTER", "ADDSLOTSRANGE", String.valueOf(first), String.valueOf(last));
        }
        for (int i = 1; i < n; i++) {
            servers.get(i)
                    .command(
                            "CLUSTER",
                            "MEET",
                            servers.get(0).host(),
                            String.valueOf(servers.get(0).port()));
        }
        long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
        while (!formed()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no cluster_state:ok on every node within " + FORMATION_TIMEOUT);
            }
            Thread.sleep(50);
        }
    }

    private boolean formed() {
        for (RedisServerProcess server : servers.all()) {
            String info = String.valueOf(server.command("CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + servers.size())) {
                return false;
            }
        }
        return true;
    }

    /**
     * Starts a replica of {@code master} (a cluster node that meets the others and {@code CLUSTER
     * REPLICATE}s it) and returns once its replication link is up. Stopped with the cluster. The
     * cluster node timeout is 2 s, so a SIGKILLed master with a replica fails over in a few seconds.
     */
    public RedisServerProcess addReplica(RedisServerProcess master) throws InterruptedException {
        RedisServerProcess replica = clusterNode(RedisServerProcess.builder()).start();
        added.add(replica);
        replica.command("CLUSTER", "MEET", master.host(), String.valueOf(master.port()));
        String masterId = String.valueOf(master.command("CLUSTER", "MYID"));
        long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
        boolean replicating = false;
        while (true) {
            try {
                if (!replicating) {
                    // once only: asking again restarts the sync
                    replica.command("CLUSTER", "REPLICATE", masterId);
                    replicating = true;
                }
                if (String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up")) {
                    return replica;
                }
            } catch (RedisCommandException e) {
                // the master is not known to the replica yet
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("replica " + replica + " of " + master + " did not sync in time");
            }
            Thread.sleep(50);
        }
    }

    /**
     * Starts a master that owns no slot, as a new shard is before a resharding fills it: a cluster
     * node that meets the others. Returns once every node, the new one included, knows every other
     * and reports {@code cluster_state:ok} (until then the new master answers {@code CLUSTERDOWN},
     * also to a {@code MIGRATE} to it). Stopped with the cluster; not among {@link #all()}.
     */
    public RedisServerProcess addEmptyMaster() throws InterruptedException {
        RedisServerProcess master = clusterNode(RedisServerProcess.builder()).start();
        added.add(master);
        addedMasters.add(master);
        master.command("CLUSTER", "MEET", get(0).host(), String.valueOf(get(0).port()));
        int known = servers.size() + added.size();
        List<RedisServerProcess> nodes = new ArrayList<>(servers.all());
        nodes.addAll(added);
        long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
        while (!nodes.stream().allMatch(node -> {
            String info = String.valueOf(node.command("CLUSTER", "INFO"));
            return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + known);
        })) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("master " + master + " did not join the cluster in time");
            }
            Thread.sleep(50);
        }
        return master;
    }

    /** Master {@code index}, in the order of the slot ranges. */
    public RedisServerProcess get(int index) {
        return servers.get(index);
    }

    public List<RedisServerProcess> all() {
        return servers.all();
    }

    /** The seeds as {@code host:port,host:port}, the form of {@code fencedlock.redlock.cluster.nodes}. */
    public String seeds() {
        return servers.all().stream().map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
    }

    /** The slot of {@code key} ({@code CLUSTER KEYSLOT}). */
    public int slotOf(String key) {
        return ((Long) servers.get(0).command("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** The live node that owns {@code slot} now as a master, by its own slot map. */
    public RedisServerProcess ownerOf(int slot) {
        List<RedisServerProcess> nodes = new ArrayList<>(servers.all());
        nodes.addAll(added);
        for (RedisServerProcess server : nodes) {
            if (server.isAlive() && ownsSlot(server, slot)) {
                return server;
            }
        }
        throw new IllegalStateException("no master owns slot " + slot);
    }

    private static boolean ownsSlot(RedisServerProcess server, int slot) {
        String myself = String.valueOf(server.command("CLUSTER", "MYID"));
        for (Object entry : (List<?>) server.command("CLUSTER", "SLOTS")) {
            List<?> range = (List<?>) entry;
            long start = (Long) range.get(0);
            long end = (Long) range.get(1);
            List<?> master = (List<?>) range.get(2);
            if (start <= slot && slot <= end && myself.equals(String.valueOf(master.get(2)))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Moves {@code slot} with its keys from {@code source} to {@code target} as {@code redis-cli
     * --cluster reshard} does: {@link #beginMigration}, then {@link #finishMigration}.
     */
    public void moveSlot(int slot, RedisServerProcess source, RedisServerProcess target) {
        beginMigration(slot, source, target);
        finishMigration(slot, source, target);
    }

    /**
     * Opens the migration of {@code slot}: {@code SETSLOT IMPORTING} on {@code target}, then {@code
     * MIGRATING} on {@code source}. From then on {@code source} answers {@code ASK} for keys it no
     * longer has, and {@code TRYAGAIN} for a multi-key call whose keys it has only some of.
     */
    public void beginMigration(int slot, RedisServerProcess source, RedisServerProcess target) {
        String s = String.valueOf(slot);
        target.command("CLUSTER", "SETSLOT", s, "IMPORTING", nodeId(source));
        source.command("CLUSTER", "SETSLOT", s, "MIGRATING", nodeId(target));
    }

    /** Moves {@code keys} (of a migrating slot) from {@code source} to {@code target}, in one {@code MIGRATE}. */
    public void migrateKeys(RedisServerProcess source, RedisServerProcess target, List<String> keys) {
        List<String> migrate = new ArrayList<>(
                List.of("MIGRATE", target.host(), String.valueOf(target.port()), "", "0", "5000", "KEYS"));
        migrate.addAll(keys);
        source.command(migrate.toArray(String[]::new));
    }

    /**
     * Ends a migration {@link #beginMigration begun}: {@code MIGRATE} of every key left in {@code
     * slot} in batches, then {@code SETSLOT NODE} on both nodes and on every other master.
     */
    public void finishMigration(int slot, RedisServerProcess source, RedisServerProcess target) {
        String s = String.valueOf(slot);
        while (true) {
            List<?> keys = (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", s, "100");
            if (keys.isEmpty()) {
                break;
            }
            migrateKeys(source, target, keys.stream().map(String::valueOf).toList());
        }
        String targetId = nodeId(target);
        target.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
        source.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
        List<RedisServerProcess> others = new ArrayList<>(servers.all());
        others.addAll(addedMasters);
        for (RedisServerProcess other : others) {
            if (other != source && other != target) {
                other.command("CLUSTER", "SETSLOT", s, "NODE", targetId);
            }
        }
    }

    private static String nodeId(RedisServerProcess node) {
        return String.valueOf(node.command("CLUSTER", "MYID"));
    }

    @Override
    public void close() {
        added.forEach(RedisServerProcess::close);
        servers.close();
    }

    @Override
    public String toString() {
        return "RedisCluster" + seeds();
    }
}
