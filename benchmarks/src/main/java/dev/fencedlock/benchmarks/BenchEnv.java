package dev.fencedlock.benchmarks;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Where the servers of a run are, as {@code benchmarks/run.sh} passes them to every JMH fork with
 * {@code -D} options. A missing address fails the benchmark's setup with a message that says which
 * option to set, instead of quietly talking to some default server.
 */
public final class BenchEnv {
    /** Comma-separated {@code host:port} of the Redis servers, at least five for the quorum runs. */
    public static final String REDIS = "bench.redis";
    /** Name the Sentinels of {@link #REDIS_SENTINEL_NODES} monitor their master by. */
    public static final String REDIS_SENTINEL_MASTER = "bench.redis.sentinel.master";
    /** Comma-separated {@code host:port} of the Sentinels watching one master with one replica. */
    public static final String REDIS_SENTINEL_NODES = "bench.redis.sentinel.nodes";
    /**
     * Prefix of the Redis Cluster seeds: {@code bench.redis.cluster.<masters>} lists the masters of
     * a cluster of that many shards, no replicas, as {@code host:port,...}.
     */
    public static final String REDIS_CLUSTER_PREFIX = "bench.redis.cluster.";
    /** ZooKeeper connect string. */
    public static final String ZOOKEEPER = "bench.zookeeper";
    /** JDBC URL of the PostgreSQL database; default {@code jdbc:postgresql://127.0.0.1:5432/test}. */
    public static final String POSTGRES_URL = "bench.postgres.url";
    /** PostgreSQL user (trust authentication); default {@code postgres}. */
    public static final String POSTGRES_USER = "bench.postgres.user";
    /** Directory for metrics that JMH's own result file cannot hold (latency percentiles). */
    public static final String MARIADB_URL = "bench.mariadb.url";

    public static final String MARIADB_USER = "bench.mariadb.user";
    public static final String OUT = "bench.out";
    /** Which round of an interleaved run this fork belongs to, so ratios can be paired by round. */
    public static final String ROUND = "bench.round";

    private BenchEnv() {}

    /** The first {@code count} Redis servers, as {@code redis://host:port} URIs. */
    public static List<String> redisUris(int count) {
        List<String> all = Arrays.stream(required(REDIS).split(","))
                .map(String::trim)
                .map(hostPort -> "redis://" + hostPort)
                .toList();
        if (all.size() < count) {
            throw new IllegalStateException(
                    "-D" + REDIS + " lists " + all.size() + " Redis servers, this benchmark needs " + count);
        }
        return all.subList(0, count);
    }

    public static String sentinelMaster() {
        return required(REDIS_SENTINEL_MASTER);
    }

    /** The Sentinels as {@code host:port}. */
    public static List<String> sentinelNodes() {
        return Arrays.stream(required(REDIS_SENTINEL_NODES).split(","))
                .map(String::trim)
                .toList();
    }

    /** The masters of the Redis Cluster of {@code shards} shards, as {@code host:port}. */
    public static List<String> clusterNodes(int shards) {
        return Arrays.stream(required(REDIS_CLUSTER_PREFIX + shards).split(","))
                .map(String::trim)
                .toList();
    }

    public static String zookeeperConnect() {
        return required(ZOOKEEPER);
    }

    public static String postgresUrl() {
        return System.getProperty(POSTGRES_URL, "jdbc:postgresql://127.0.0.1:5432/test");
    }

    public static String postgresUser() {
        return System.getProperty(POSTGRES_USER, "postgres");
    }

    /**
     * MariaDB for the JDBC benchmark: a database of the benchmark's own ({@code fencedlock_bench},
     * created when missing), so that its tables never meet another user's.
     */
    public static String mariadbUrl() {
        return System.getProperty(
                MARIADB_URL, "jdbc:mariadb://127.0.0.1:3306/fencedlock_bench?createDatabaseIfNotExist=true");
    }

    public static String mariadbUser() {
        return System.getProperty(MARIADB_USER, "root");
    }

    public static Path outDir() {
        return Path.of(System.getProperty(OUT, "."));
    }

    public static int round() {
        return Integer.getInteger(ROUND, 1);
    }

    private static String required(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("-D" + key + " is not set; run the suite with benchmarks/run.sh, "
                    + "which starts the servers and passes their addresses");
        }
        return value;
    }
}
