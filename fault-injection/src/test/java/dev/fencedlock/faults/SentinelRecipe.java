package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The Sentinel group of docs/which-redis.md ("Setting up a Sentinel group"), started from the
 * page's blocks with only the placeholders filled: a master, one replica and three Sentinels,
 * each a {@link RecipeServer}; {@link #failover} measures how long after a SIGKILL of the master a
 * client configured from the page's properties is granted a lock again. Not thread-safe.
 */
final class SentinelRecipe implements AutoCloseable {
    private static final String MASTER = "orders";

    private final RecipeBlocks page = RecipeBlocks.whichRedis();
    private final List<RecipeServer> servers = new ArrayList<>();
    private RecipeServer master;
    private RecipeServer replica;
    private final List<RecipeServer> sentinels = new ArrayList<>();

    /**
     * Starts the group, each {@code sentinel.conf} with the lines of the recipes {@code
     * sentinelOverrides} in place of the lines setting the same, and returns once the replica is in
     * sync and every Sentinel knows the replica and the other two.
     */
    static SentinelRecipe start(List<String> sentinelOverrides) {
        SentinelRecipe group = new SentinelRecipe();
        try {
            group.startServers(sentinelOverrides);
            return group;
        } catch (RuntimeException | Error e) {
            group.close();
            throw e;
        }
    }

    private void startServers(List<String> sentinelOverrides) {
        master = add(RecipeServer.start((port, dir) -> dataNode(port, dir), false));
        replica = add(RecipeServer.start(
                (port, dir) -> {
                    List<String> lines = dataNode(port, dir);
                    lines.addAll(page.lines("sentinel-replica.conf", masterAddress()));
                    return lines;
                },
                false));
        RedisCli.awaitUntil(
                "the replica is in sync",
                () -> RedisCli.data(replica.port(), "INFO", "replication").contains("master_link_status:up"));
        for (int i = 0; i < 3; i++) {
            sentinels.add(add(RecipeServer.start(
                    (port, dir) -> {
                        Map<String, String> values = new HashMap<>(masterAddress());
                        values.put("<port>", port.toString());
                        values.put("<dir>", dir.toString());
                        List<String> lines = page.lines("sentinel.conf", values);
                        for (String override : sentinelOverrides) {
                            lines = RecipeBlocks.override(lines, page.lines(override, Map.of()));
                        }
                        return lines;
                    },
                    true)));
        }
        for (RecipeServer sentinel : sentinels) {
            RedisCli.awaitUntil(sentinel + " knows the replica and the other Sentinels", () -> {
                Map<String, String> fields =
                        RedisCli.fields(RedisCli.sentinel(sentinel.port(), "SENTINEL", "MASTER", MASTER));
                return "1".equals(fields.get("num-slaves")) && "2".equals(fields.get("num-other-sentinels"));
            });
        }
    }

    private List<String> dataNode(int port, Path dir) {
        return page.lines("sentinel-data-node.conf", Map.of("<port>", Integer.toString(port), "<dir>", dir.toString()));
    }

    private Map<String, String> masterAddress() {
        return Map.of("<master-ip>", "127.0.0.1", "<master-port>", Integer.toString(master.port()));
    }

    private RecipeServer add(RecipeServer server) {
        servers.add(server);
        return server;
    }

    /**
     * A client built as the page says: the common keys and {@code RedlockSettings.builder(...)} from
     * the client recipe and then each of {@code moreProperties} (later keys win).
     */
    LockClient client(List<String> moreProperties) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < sentinels.size(); i++) {
            values.put("<sentinel-" + (i + 1) + "-ip>", "127.0.0.1");
            values.put(
                    "<sentinel-" + (i + 1) + "-port>",
                    Integer.toString(sentinels.get(i).port()));
        }
        Properties properties = properties(page.lines("sentinel-client.properties", values));
        for (String more : moreProperties) {
            properties.putAll(properties(page.lines(more, Map.of())));
        }
        LockConfig config = LockConfig.fromProperties(properties);
        return RedlockLocks.create(
                config,
                RedlockSettings.builder(config.settings(RedlockLocks.BACKEND)).build());
    }

    static Properties properties(List<String> lines) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(String.join("\n", lines)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    /**
     * Takes and releases {@code lock}, SIGKILLs the master, and takes {@code lock} again within
     * {@code wait}: returns the time from the kill to that grant. Checks that the Sentinels then name
     * the replica and that the new token is above the one before.
     */
    Duration failover(LockClient client, String lock, Duration wait) throws InterruptedException {
        long before;
        try (Lease lease = client.lock(lock).acquire(wait)) {
            before = lease.token();
        }
        long killedAt = System.nanoTime();
        master.kill();
        try (Lease lease = client.lock(lock).acquire(wait)) {
            Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(lease.token()).as("the token after the failover").isGreaterThan(before);
            assertThat(RedisCli.sentinel(sentinels.get(0).port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER))
                    .as("the Sentinels name the replica")
                    .contains(Integer.toString(replica.port()));
            return failover;
        }
    }

    /** Stops the Sentinels first, then the data nodes; idempotent. */
    @Override
    public void close() {
        for (int i = servers.size() - 1; i >= 0; i--) {
            servers.get(i).close();
        }
    }
}
