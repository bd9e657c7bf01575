package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.testkit.redis.RedisServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Node subsets for tests that try every combination, as redsync's TestMutexQuorum does. */
final class Quorums {
    private Quorums() {}

    /** Every subset of {@code nodes} node indexes, as lists, in bit order. */
    static List<List<Integer>> allSubsets(int nodes) {
        List<List<Integer>> subsets = new ArrayList<>();
        for (int mask = 0; mask < 1 << nodes; mask++) {
            List<Integer> subset = new ArrayList<>();
            for (int node = 0; node < nodes; node++) {
                if ((mask & 1 << node) != 0) {
                    subset.add(node);
                }
            }
            subsets.add(subset);
        }
        return subsets;
    }

    /** Every subset that is a strict majority of {@code nodes}. */
    static List<List<Integer>> majorities(int nodes) {
        return allSubsets(nodes).stream()
                .filter(subset -> subset.size() > nodes / 2)
                .toList();
    }

    static List<Integer> complement(List<Integer> subset, int nodes) {
        List<Integer> rest = new ArrayList<>();
        for (int node = 0; node < nodes; node++) {
            if (!subset.contains(node)) {
                rest.add(node);
            }
        }
        return rest;
    }

    /**
     * For every combination of nodes already taken by another client: the lock is granted exactly
     * when the free nodes are a quorum; a grant leaves its value on every free node; a refusal
     * leaves nothing of its own anywhere; the other client's keys are never touched.
     */
    static void assertEveryCombinationOfTakenNodes(RedisServers servers, TestClient client, String prefix)
            throws InterruptedException {
        int nodes = servers.size();
        for (List<Integer> taken : allSubsets(nodes)) {
            String name = prefix + ":" + taken;
            List<Integer> free = complement(taken, nodes);
            TestClient.takeElsewhere(servers, taken, name);
            Optional<Lease> lease = client.lock(name).tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
            boolean quorumFree = free.size() >= Votes.quorum(nodes);
            assertThat(lease.isPresent())
                    .as("taken on %s of %d nodes", taken, nodes)
                    .isEqualTo(quorumFree);
            for (int node : free) {
                String value = TestClient.lockValue(servers, node, name);
                if (quorumFree) {
                    assertThat(value)
                            .as("our value on free node %d", node)
                            .isNotNull()
                            .isNotEqualTo(TestClient.FOREIGN);
                } else {
                    assertThat(value)
                            .as("free node %d after a refused attempt (taken %s)", node, taken)
                            .isNull();
                }
            }
            lease.ifPresent(Lease::close);
            for (int node = 0; node < nodes; node++) {
                assertThat(TestClient.lockValue(servers, node, name))
                        .as("node %d after release (taken %s)", node, taken)
                        .isEqualTo(taken.contains(node) ? TestClient.FOREIGN : null);
            }
        }
    }
}
