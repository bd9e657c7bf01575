package dev.fencedlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockLocks;
import dev.fencedlock.redlock.RedlockSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The Redis Cluster of docs/which-redis.md ("Setting up a Redis Cluster"), started from the page's
 * blocks with only the placeholders filled: six nodes, each a {@link RecipeServer}, joined by the
 * page's {@code redis-cli --cluster create} command into three masters with a replica each. Not
 * thread-safe.
 */
final class ClusterRecipe implements AutoCloseable {
    private static final int NODES = 6;

    private final RecipeBlocks page = RecipeBlocks.whichRedis();
    private final List<RecipeServer> nodes = new ArrayList<>();

    /** Starts the nodes, runs the create command and returns once every node reports the cluster ok and every replica is in sync. */
    static ClusterRecipe start() {
        ClusterRecipe cluster = new ClusterRecipe();
        try {
            cluster.form();
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void form() {
        for (int i = 0; i < NODES; i++) {
            nodes.add(RecipeServer.start(
                    (port, dir) ->
                            page.lines("cluster-node.conf", Map.of("<port>", port.toString(), "<dir>", dir.toString())),
                    false));
        }
        String command =
                String.join(" ", page.lines("cluster-create.sh", addresses())).replace("\\", " ");
        RedisCli.run(Arrays.asList(command.trim().split("\\s+")));
        for (RecipeServer node : nodes) {
            RedisCli.awaitUntil(node + " reports the cluster ok", () -> {
                String replication = RedisCli.data(node.port(), "INFO", "replication");
                return RedisCli.data(node.port(), "CLUSTER", "INFO").contains("cluster_state:ok")
                        && (replication.contains("role:master") || replication.contains("master_link_status:up"));
            });
        }
    }

    private Map<String, String> addresses() {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            values.put("<node-" + (i + 1) + "-ip>", "127.0.0.1");
            values.put(
                    "<node-" + (i + 1) + "-port>", Integer.toString(nodes.get(i).port()));
        }
        return values;
    }

    /** A client built as the page says, from its client recipe and {@code RedlockSettings.builder(...)}. */
    LockClient client() {
        LockConfig config = LockConfig.fromProperties(
                SentinelRecipe.properties(page.lines("cluster-client.properties", addresses())));
        return RedlockLocks.create(
                config,
                RedlockSettings.builder(config.settings(RedlockLocks.BACKEND)).build());
    }

    /**
     * Takes and releases {@code lock}, SIGKILLs the master of its slot, and takes {@code lock} again
     * within {@code wait}: returns the time from the kill to that grant. Checks that the new token is
     * above the one before.
     */
    Duration failover(LockClient client, String lock, Duration wait) throws InterruptedException {
        long before;
        try (Lease lease = client.lock(lock).acquire(wait)) {
            before = lease.token();
        }
        RecipeServer master = masterOf(Integer.parseInt(
                RedisCli.data(nodes.get(0).port(), "CLUSTER", "KEYSLOT", lock).trim()));
        long killedAt = System.nanoTime();
        master.kill();
        try (Lease lease = client.lock(lock).acquire(wait)) {
            Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
            assertThat(lease.token()).as("the token after the failover").isGreaterThan(before);
            return failover;
        }
    }

    /** The node that serves {@code slot} as a master, by {@code CLUSTER NODES}. */
    private RecipeServer masterOf(int slot) {
        for (String line :
                RedisCli.data(nodes.get(0).port(), "CLUSTER", "NODES").split("\\R")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 9 || !fields[2].contains("master")) {
                continue;
            }
            for (int i = 8; i < fields.length; i++) {
                String[] range = fields[i].split("-");
                if (range[0].startsWith("[")) {
                    continue;
                }
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                if (first <= slot && slot <= last) {
                    int port =
                            Integer.parseInt(fields[1].substring(fields[1].indexOf(':') + 1, fields[1].indexOf('@')));
                    return nodes.stream()
                            .filter(node -> node.port() == port)
                            .findFirst()
                            .orElseThrow();
                }
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    @Override
    public void close() {
        nodes.forEach(RecipeServer::close);
    }
}
