package dev.fencedlock.examples.inventory;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.jdbcprovider.JdbcLockSettings;
import dev.fencedlock.jdbcprovider.JdbcLocks;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.zookeeper.ZooKeeperSettings;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.TestingServer;

/**
 * Decides which lock backend the run uses. Command-line flags win; then the usual fencedlock
 * sources (system properties, environment, {@code fencedlock.properties}); with none of them the
 * run starts an in-process ZooKeeper, the embedded default.
 */
final class LockSetup implements AutoCloseable {
    private final LockConfig config;
    private final List<String> workerProcessArgs;
    private final TestingServer embeddedZooKeeper;

    private LockSetup(LockConfig config, List<String> workerProcessArgs, TestingServer embeddedZooKeeper) {
        this.config = config;
        this.workerProcessArgs = workerProcessArgs;
        this.embeddedZooKeeper = embeddedZooKeeper;
    }

    static LockSetup resolve(RunSettings settings) throws Exception {
        LockConfig.Builder builder =
                configuredOutsideTheCommandLine() ? LockConfig.fromEnvironment().toBuilder() : null;
        List<String> forward = new ArrayList<>();
        if (settings.backend().isPresent()) {
            builder = orNew(builder).backend(settings.backend().get());
            forward.addAll(List.of("--backend", settings.backend().get()));
        }
        if (settings.redisNodes().isPresent()) {
            builder = orNew(builder)
                    .backend("redlock")
                    .set(
                            RedlockSettings.NODES,
                            List.of(settings.redisNodes().get().split(",")))
                    .leaseTime(longestLease(settings));
            forward.addAll(List.of("--redis", settings.redisNodes().get()));
        }
        if (settings.redisSentinel().isPresent()) {
            RunSettings.RedisSentinel sentinel = settings.redisSentinel().get();
            builder = orNew(builder)
                    .backend("redlock")
                    .set(RedlockSettings.SENTINEL_MASTER, sentinel.master())
                    .set(RedlockSettings.SENTINEL_NODES, sentinel.sentinels())
                    .leaseTime(longestLease(settings));
            forward.addAll(List.of("--redis-sentinel", sentinel.flagValue()));
        }
        if (settings.redisCluster().isPresent()) {
            builder = orNew(builder)
                    .backend("redlock")
                    .set(RedlockSettings.CLUSTER_NODES, settings.redisCluster().get())
                    .leaseTime(longestLease(settings));
            forward.addAll(List.of("--redis-cluster", settings.redisCluster().get()));
        }
        if (settings.zookeeperConnect().isPresent()) {
            builder = orNew(builder)
                    .backend("zookeeper")
                    .set(ZooKeeperSettings.CONNECT, settings.zookeeperConnect().get());
            forward.addAll(List.of("--zookeeper", settings.zookeeperConnect().get()));
        }
        boolean wantsEmbeddedZooKeeper = builder == null
                || ("zookeeper".equals(builder.build().backend())
                        && zookeeper(builder.build()).connect().isEmpty());
        if (!wantsEmbeddedZooKeeper) {
            return new LockSetup(builder.build(), forward, null);
        }
        if (settings.workerProcess()) {
            throw new IllegalArgumentException("A worker process needs the coordinator's --zookeeper address");
        }
        TestingServer server = startZooKeeper();
        LockConfig config = orNew(builder)
                .backend("zookeeper")
                .set(ZooKeeperSettings.CONNECT, server.getConnectString())
                .build();
        forward.addAll(List.of("--zookeeper", server.getConnectString()));
        return new LockSetup(config, forward, server);
    }

    /**
     * The longest lease the run takes, as {@code fencedlock.lease-time}: a Redis node counts as
     * restarted (and sits out the restart quarantine) until it has been up that long, so the 30 s
     * default would keep freshly started nodes out for 30 s although no lease of the run lasts more
     * than this.
     */
    private static Duration longestLease(RunSettings settings) {
        return settings.lease().compareTo(InventoryApp.BROKEN_ORDER_LEASE) > 0
                ? settings.lease()
                : InventoryApp.BROKEN_ORDER_LEASE;
    }

    private static TestingServer startZooKeeper() throws Exception {
        TestingServer server = new TestingServer(false);
        server.start();
        return server;
    }

    private static LockConfig.Builder orNew(LockConfig.Builder builder) {
        return builder != null ? builder : LockConfig.builder();
    }

    private static boolean configuredOutsideTheCommandLine() {
        return System.getProperty(LockConfig.BACKEND) != null
                || System.getenv(LockConfig.environmentVariable(LockConfig.BACKEND)) != null
                || Thread.currentThread().getContextClassLoader().getResource("fencedlock.properties") != null;
    }

    static RedlockSettings redlock(LockConfig config) {
        return RedlockSettings.from(config.settings("redlock"));
    }

    static ZooKeeperSettings zookeeper(LockConfig config) {
        return ZooKeeperSettings.from(config.settings("zookeeper"));
    }

    LockConfig config() {
        return config;
    }

    /**
     * A client of the configured backend. The jdbc backend without {@code fencedlock.jdbc.url} keeps
     * its lock table in the run's own database, so it uses {@code database}'s pool.
     */
    LockClient newClient(InventoryDatabase database) {
        if ("jdbc".equals(config.backend())
                && config.settings("jdbc").get(JdbcLockSettings.URL).isEmpty()) {
            return JdbcLocks.create(config, database.dataSource());
        }
        return LockClient.create(config);
    }

    /** Human-readable backend description for the summary, without credentials. */
    String describe() {
        return switch (config.backend()) {
            case "redlock" -> describeRedlock(redlock(config));
            case "zookeeper" ->
                "zookeeper at " + zookeeper(config).connect().orElse("?")
                        + (embeddedZooKeeper != null ? " (embedded)" : "");
            case "jdbc" ->
                config.settings("jdbc").get(JdbcLockSettings.URL).isEmpty()
                        ? "jdbc (the lock table in the run's database)"
                        : "jdbc";
            default -> config.backend();
        };
    }

    private static String describeRedlock(RedlockSettings redlock) {
        if (redlock.sentinel().isPresent()) {
            RedlockSettings.Sentinel sentinel = redlock.sentinel().get();
            return "redlock on the Sentinel master " + sentinel.master() + " ("
                    + sentinel.sentinels().size() + " Sentinels)";
        }
        if (!redlock.clusterNodes().isEmpty()) {
            return "redlock on a Redis Cluster (" + redlock.clusterNodes().size() + " seed nodes)";
        }
        return "redlock over " + redlock.nodes().size() + " Redis nodes";
    }

    /** Flags that make a worker process use the same backend. */
    List<String> workerProcessArgs() {
        return List.copyOf(workerProcessArgs);
    }

    @Override
    public void close() throws IOException {
        if (embeddedZooKeeper != null) {
            embeddedZooKeeper.close();
        }
    }
}
