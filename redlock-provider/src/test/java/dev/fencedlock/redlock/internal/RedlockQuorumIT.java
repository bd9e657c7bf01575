package dev.fencedlock.redlock.internal;

import dev.fencedlock.testkit.junit.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Quorum arithmetic on five real nodes, over every combination of nodes taken by someone else. */
class RedlockQuorumIT {

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(5);

    @Test
    void grantedExactlyWhenAQuorumOfNodesIsFree() throws Exception {
        try (TestClient client =
                TestClient.create(TestClient.config(redis.servers()).build())) {
            Quorums.assertEveryCombinationOfTakenNodes(redis.servers(), client, "quorum");
        }
    }
}
