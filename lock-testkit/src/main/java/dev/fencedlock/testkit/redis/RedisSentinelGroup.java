package dev.fencedlock.testkit.redis;

import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A Redis deployment watched by Sentinel, as real processes: one master, its replicas and its
 * Sentinels, started and ready when {@link #start} returns (every replica in sync, every Sentinel
 * aware of every replica and of the other Sentinels). Configure a client with {@code
 * fencedlock.redlock.sentinel.master=}{@link #masterName()} and {@code
 * fencedlock.redlock.sentinel.nodes=}{@link #sentinelNodes()}. Thread-safe as far as {@link
 * RedisServerProcess} is.
 */
public final class RedisSentinelGroup implements AutoCloseable {
    private static final Duration READY_WITHIN = Duration.ofSeconds(30);

    private final String masterName;
    private final List<RedisServerProcess> servers;
    private final int replicaCount;

    private RedisSentinelGroup(String masterName, List<RedisServerProcess> servers, int replicaCount) {
        this.masterName = masterName;
        this.servers = Collections.unmodifiableList(servers);
        this.replicaCount = replicaCount;
    }

    /**
     * Starts a master, {@code replicas} replicas of it and {@code sentinels} Sentinels that monitor
     * it under {@code masterName}, agree on a failure with a majority of the Sentinels, and call the
     * master down after {@code downAfter} without an answer. If anything fails to start or get
     * ready within 30 s, everything already started is killed.
     *
     * @throws IllegalArgumentException if {@code replicas} is negative or {@code sentinels} is below 1
     * @throws IllegalStateException if the group is not ready within 30 s, or the calling thread is
     *     interrupted while waiting (its interrupt flag is then set again)
     */
    public static RedisSentinelGroup start(String masterName, int replicas, int sentinels, Duration downAfter) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replicas must not be negative, got " + replicas);
        }
        if (sentinels < 1) {
            throw new IllegalArgumentException("sentinels must be at least 1, got " + sentinels);
        }
        List<RedisServerProcess> started = new ArrayList<>();
        try {
            RedisServerProcess master = RedisServerProcess.start();
            started.add(master);
            for (int i = 0; i < replicas; i++) {
                started.add(RedisServerProcess.builder()
                        .arguments("--replicaof", master.host(), Integer.toString(master.port()))
                        .start());
            }
            RedisSentinelGroup group = new RedisSentinelGroup(masterName, started, replicas);
            for (RedisServerProcess replica : group.replicas()) {
                Await.until(
                        replica + " is in sync with the master",
                        READY_WITHIN,
                        () -> String.valueOf(replica.command("INFO", "replication"))
                                .contains("master_link_status:up"));
            }
            for (int i = 0; i < sentinels; i++) {
                started.add(RedisServerProcess.builder()
                        .sentinel(masterName, master, sentinels / 2 + 1, downAfter)
                        .start());
            }
            for (RedisServerProcess sentinel : group.sentinels()) {
                Await.until(
                        sentinel + " knows the replicas and the other Sentinels",
                        READY_WITHIN,
                        () -> group.masterField(sentinel, "num-slaves").equals(Integer.toString(replicas))
                                && group.masterField(sentinel, "num-other-sentinels")
                                        .equals(Integer.toString(sentinels - 1)));
            }
            return group;
        } catch (InterruptedException e) {
            closeAll(started);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while starting the Sentinel group " + masterName, e);
        } catch (RuntimeException | Error e) {
            closeAll(started);
            throw e;
        }
    }

    /** The name the Sentinels know the master by. */
    public String masterName() {
        return masterName;
    }

    /** The server started as the master (after a failover, a Sentinel may name another one). */
    public RedisServerProcess master() {
        return servers.get(0);
    }

    /** The servers started as replicas of {@link #master()}. */
    public List<RedisServerProcess> replicas() {
        return servers.subList(1, 1 + replicaCount);
    }

    /** The Sentinels, in the order they were started. */
    public List<RedisServerProcess> sentinels() {
        return servers.subList(1 + replicaCount, servers.size());
    }

    /** The Sentinels as {@code host:port,host:port}, the form of {@code fencedlock.redlock.sentinel.nodes}. */
    public String sentinelNodes() {
        return sentinels().stream().map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
    }

    /**
     * One field of {@code SENTINEL MASTER <name>} as {@code sentinel} reports it (e.g. {@code
     * num-slaves}, {@code role-reported-time}); empty if it reports no such field.
     */
    public String masterField(RedisServerProcess sentinel, String field) {
        List<?> reply = (List<?>) sentinel.command("SENTINEL", "MASTER", masterName);
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            if (field.equals(reply.get(i))) {
                return String.valueOf(reply.get(i + 1));
            }
        }
        return "";
    }

    /** The port of the data node {@code sentinel} names as the master now. */
    public int masterPort(RedisServerProcess sentinel) {
        List<?> reply = (List<?>) sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
        return Integer.parseInt(String.valueOf(reply.get(1)));
    }

    /** Stops the Sentinels first, then the data nodes; idempotent. */
    @Override
    public void close() {
        closeAll(servers);
    }

    private static void closeAll(List<RedisServerProcess> servers) {
        List<RedisServerProcess> reversed = new ArrayList<>(servers);
        Collections.reverse(reversed);
        reversed.forEach(RedisServerProcess::close);
    }

    @Override
    public String toString() {
        return "RedisSentinelGroup{master=" + masterName + ", servers=" + servers + "}";
    }
}
