package dev.fencedlock.benchmarks;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Creates the clients under test, each with its library's defaults except where a benchmark needs
 * an address. fencedlock clients are built only through the public {@link LockClient#create} so
 * the numbers are what an application gets.
 */
public final class Backends {
    /** The fencedlock backends {@link #fencedlock} knows, as used in {@code @Param} values. */
    public static final String LOCAL = "local";

    public static final String REDLOCK_1 = "redlock-1";
    public static final String REDLOCK_5 = "redlock-5";
    public static final String ZOOKEEPER = "zookeeper";

    /**
     * How long the throughput benchmarks wait for an uncontended lock: longer than the default
     * lease time (30 s), so that a stale grant of the thread's own, left by a release that timed
     * out, is waited out and shows as lower throughput (and in {@link SlowAcquires}) instead of
     * failing the benchmark.
     */
    public static final Duration UNCONTENDED_WAIT = Duration.ofSeconds(45);

    private static final int CURATOR_SESSION_TIMEOUT_MS = 15_000;
    private static final int CURATOR_CONNECT_TIMEOUT_MS = 5_000;

    private Backends() {}

    /**
     * A fencedlock client for {@code backend}: {@value #LOCAL}, {@value #REDLOCK_1} (one Redis
     * node), {@value #REDLOCK_5} (five) or {@value #ZOOKEEPER}.
     */
    public static LockClient fencedlock(String backend) {
        return fencedlock(backend, LockConfig.builder());
    }

    /** Like {@link #fencedlock(String)}, starting from {@code config} (e.g. a longer lease time). */
    public static LockClient fencedlock(String backend, LockConfig.Builder config) {
        switch (backend) {
            case LOCAL -> config.backend("local");
            case REDLOCK_1 -> config.backend("redlock").set(RedlockSettings.NODES, BenchEnv.redisUris(1));
            case REDLOCK_5 -> config.backend("redlock").set(RedlockSettings.NODES, BenchEnv.redisUris(5));
            case ZOOKEEPER ->
                config.backend("zookeeper")
                        .set(ZooKeeperSettings.CONNECT, BenchEnv.zookeeperConnect())
                        .set(ZooKeeperSettings.BASE_PATH, "/bench-fencedlock");
            default ->
                throw new IllegalArgumentException("unknown benchmark backend '" + backend + "'; expected "
                        + String.join(", ", LOCAL, REDLOCK_1, REDLOCK_5, ZOOKEEPER));
        }
        return LockClient.create(config.build());
    }

    /**
     * A fencedlock redlock client on the Sentinel group of the run ({@code
     * fencedlock.redlock.sentinel.*}), each grant acknowledged by {@code waitReplicas} replicas
     * ({@code fencedlock.redlock.wait-replicas}; 0 is the default, no acknowledgement).
     */
    public static LockClient fencedlockSentinel(int waitReplicas) {
        return LockClient.create(LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.SENTINEL_MASTER, BenchEnv.sentinelMaster())
                .set(RedlockSettings.SENTINEL_NODES, String.join(",", BenchEnv.sentinelNodes()))
                .set(RedlockSettings.WAIT_REPLICAS, Integer.toString(waitReplicas))
                .build());
    }

    /** A fencedlock redlock client on the run's Redis Cluster of {@code shards} masters. */
    public static LockClient fencedlockCluster(int shards) {
        return LockClient.create(LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.CLUSTER_NODES, String.join(",", BenchEnv.clusterNodes(shards)))
                .build());
    }

    /**
     * A Redisson client on the run's Sentinel group ({@code useSentinelServers}). With {@code
     * syncReplicas} Redisson's default: its locks wait for the replicas' acknowledgement of each
     * lock and unlock ({@code checkLockSyncedSlaves}); without, they do not.
     */
    public static RedissonClient redissonSentinel(boolean syncReplicas) {
        Config config = new Config();
        config.setCheckLockSyncedSlaves(syncReplicas);
        config.useSentinelServers()
                .setMasterName(BenchEnv.sentinelMaster())
                .addSentinelAddress(BenchEnv.sentinelNodes().stream()
                        .map(hostPort -> "redis://" + hostPort)
                        .toArray(String[]::new));
        return Redisson.create(config);
    }

    /** A Redisson client on the run's Redis Cluster of {@code shards} masters ({@code useClusterServers}). */
    public static RedissonClient redissonCluster(int shards) {
        Config config = new Config();
        config.useClusterServers()
                .addNodeAddress(BenchEnv.clusterNodes(shards).stream()
                        .map(hostPort -> "redis://" + hostPort)
                        .toArray(String[]::new));
        return Redisson.create(config);
    }

    /** A Redisson client on one Redis server, {@code redisUri} like {@code redis://127.0.0.1:7000}. */
    public static RedissonClient redisson(String redisUri) {
        Config config = new Config();
        config.useSingleServer().setAddress(redisUri);
        return Redisson.create(config);
    }

    /** A started Curator client with the same session timeout as fencedlock's default (15 s). */
    public static CuratorFramework curator() throws InterruptedException {
        CuratorFramework curator = CuratorFrameworkFactory.newClient(
                BenchEnv.zookeeperConnect(),
                CURATOR_SESSION_TIMEOUT_MS,
                CURATOR_CONNECT_TIMEOUT_MS,
                new ExponentialBackoffRetry(100, 3));
        curator.start();
        if (!curator.blockUntilConnected(CURATOR_CONNECT_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
            curator.close();
            throw new IllegalStateException("no ZooKeeper connection to " + BenchEnv.zookeeperConnect());
        }
        return curator;
    }
}
