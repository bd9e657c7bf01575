package dev.fencedlock.testkit.redis;

import dev.fencedlock.testkit.await.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * N independent {@code redis-server} processes, as a Redlock deployment uses them (this is not a
 * Redis Cluster: the servers know nothing of each other). Nodes are numbered from 0 in the order of
 * {@link #uris()}. Thread-safe as far as {@link RedisServerProcess} is.
 */
public final class RedisServers implements AutoCloseable {
    private final List<RedisServerProcess> servers;

    private RedisServers(List<RedisServerProcess> servers) {
        this.servers = Collections.unmodifiableList(servers);
    }

    /** Starts {@code count} servers with default options. */
    public static RedisServers start(int count) {
        return start(count, options -> {});
    }

    /**
     * Starts {@code count} servers, each configured by {@code options} (called once per server with a
     * fresh builder). If one fails to start, those already started are killed.
     */
    public static RedisServers start(int count, Consumer<RedisServerProcess.Builder> options) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, got " + count);
        }
        List<RedisServerProcess> started = new ArrayList<>(count);
        try {
            for (int i = 0; i < count; i++) {
                RedisServerProcess.Builder builder = RedisServerProcess.builder();
                options.accept(builder);
                started.add(builder.start());
            }
        } catch (RuntimeException e) {
            started.forEach(RedisServerProcess::close);
            throw e;
        }
        return new RedisServers(started);
    }

    /** Node {@code index}, counted from 0. */
    public RedisServerProcess get(int index) {
        return servers.get(index);
    }

    public int size() {
        return servers.size();
    }

    public List<RedisServerProcess> all() {
        return servers;
    }

    /** Each node's URI, credentials included, in node order. */
    public List<String> uris() {
        return servers.stream().map(RedisServerProcess::uri).collect(Collectors.toList());
    }

    /** The URIs joined with commas, the form of {@code fencedlock.redlock.nodes}. */
    public String nodes() {
        return String.join(",", uris());
    }

    /**
     * Undoes injected faults so the next test starts clean: resumes paused nodes, restarts dead ones
     * (empty) and deletes every key on all nodes.
     */
    public void heal() {
        for (RedisServerProcess server : servers) {
            if (server.isPaused()) {
                server.resume();
            }
            if (!server.isAlive()) {
                server.restartEmpty();
            }
        }
        flushAll();
    }

    /**
     * Waits until every node has been up long enough that a Redlock client with this restart
     * {@code quarantine} that has never seen the nodes counts them at once ({@link
     * RedisInfo#uptimeNeededSeconds}). Waiting is the point here: the quarantine is a span of time.
     *
     * @throws AssertionError if a node does not get there within the quarantine plus a minute
     */
    public void awaitUptime(Duration quarantine) throws InterruptedException {
        long needed = RedisInfo.uptimeNeededSeconds(quarantine);
        for (RedisServerProcess server : servers) {
            Await.until(
                    server + " up for " + needed + " s",
                    quarantine.plusMinutes(1),
                    () -> RedisInfo.uptimeSeconds((String) server.command("INFO", "server")) >= needed);
        }
    }

    /** Deletes every key on every node. */
    public void flushAll() {
        servers.forEach(RedisServerProcess::flushAll);
    }

    /** Kills every node and deletes their directories. Idempotent. */
    @Override
    public void close() {
        servers.forEach(RedisServerProcess::close);
    }

    @Override
    public String toString() {
        return "RedisServers" + servers;
    }
}
