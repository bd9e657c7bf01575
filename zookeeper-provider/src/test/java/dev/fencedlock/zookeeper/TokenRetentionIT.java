package dev.fencedlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.Lease;
import dev.fencedlock.spi.TokenOrder;
import dev.fencedlock.zookeeper.ZooKeeperTestSupport.TestClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Token nodes of unused lock names go once their last token is older than the retention ({@link
 * TokenNodeSweeper}), and a name used again after its node went gets a token above every earlier
 * one ({@link LockTokens}: the token order's time floor). The sweeper runs here with a short
 * retention and an injected wall clock, against a real server, whose clock (this machine's) issues
 * the tokens.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TokenRetentionIT {
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);
    private static final int NAMES = TokenNodeSweeper.BATCH + 44; // more than one batch of reads

    private TestingServer server;
    private CuratorFramework observer;
    private TestClient client;
    private final AtomicLong clockAheadMillis = new AtomicLong();

    @BeforeEach
    void start() throws Exception {
        server = ZooKeeperTestSupport.startServer();
        observer = ZooKeeperTestSupport.observer(server.getConnectString());
        client = ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT));
        client.awaitConnected();
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        observer.close();
        server.close();
    }

    private TokenNodeSweeper sweeper(Duration retention) {
        return new TokenNodeSweeper(
                client.provider().nodes(),
                tokensPath(),
                retention,
                () -> System.currentTimeMillis() + clockAheadMillis.get());
    }

    private static String tokensPath() {
        return ZKPaths.makePath(ZooKeeperSettings.DEFAULT_BASE_PATH, ZooKeeperLocks.TOKENS_NODE);
    }

    @Test
    void unusedNamesLoseTheirTokenNodesAndGetLargerTokensAfterwards() throws Exception {
        Duration retention = Duration.ofMinutes(1);
        Map<String, Long> lastTokens = useNames("retention:", NAMES);
        TokenNodeSweeper sweeper = sweeper(retention);

        assertThat(sweeper.sweep().get(10, TimeUnit.SECONDS))
                .as("nothing is older than the retention")
                .isZero();
        assertThat(observer.getChildren().forPath(tokensPath())).hasSize(NAMES);

        clockAheadMillis.set(retention.plusSeconds(1).toMillis());
        int deleted = sweeper.sweep().get(10, TimeUnit.SECONDS);
        System.out.printf(
                "zookeeper token retention: %d names used, %d token nodes deleted, %d left%n",
                NAMES, deleted, observer.getChildren().forPath(tokensPath()).size());
        assertThat(deleted).isEqualTo(NAMES);
        assertThat(observer.getChildren().forPath(tokensPath())).isEmpty();

        assertEachNameGetsALargerToken(lastTokens);
    }

    /**
     * The sweeping client's clock runs ahead of the leader's by less than the retention: a node is
     * kept until the leader's clock, too, is past its last token, so the next token is larger.
     */
    @Test
    void aSweeperClockAheadByLessThanTheRetentionDeletesNothingTooEarly() throws Exception {
        Duration retention = Duration.ofSeconds(4);
        Duration ahead = Duration.ofSeconds(3);
        clockAheadMillis.set(ahead.toMillis());
        Map<String, Long> lastTokens = useNames("skewed:", 10);
        TokenNodeSweeper sweeper = sweeper(retention);

        assertThat(sweeper.sweep().get(10, TimeUnit.SECONDS))
                .as("a clock %s ahead, with a retention of %s, deletes no node just used", ahead, retention)
                .isZero();
        Thread.sleep(retention.minus(ahead).plusMillis(100).toMillis());
        assertThat(sweeper.sweep().get(10, TimeUnit.SECONDS)).isEqualTo(lastTokens.size());

        assertEachNameGetsALargerToken(lastTokens);
    }

    /**
     * A client that learnt a token node's state before the node was deleted, and writes after
     * another client created the node again and brought it to the same version: its write lands on
     * the new node, which its result shows; its grant is discarded and its next token is above the
     * new node's.
     */
    @Test
    void aWriteFromBeforeADeletionOnTheNodeCreatedAfterItIsNotTrusted() throws Exception {
        String name = "recreated";
        long first;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            first = lease.token();
        }
        clockAheadMillis.set(Duration.ofMinutes(2).toMillis());
        assertThat(sweeper(Duration.ofMinutes(1)).sweep().get(10, TimeUnit.SECONDS))
                .isEqualTo(1);

        long onNewNode;
        try (TestClient other =
                ZooKeeperTestSupport.client(ZooKeeperTestSupport.config(server.getConnectString(), SESSION_TIMEOUT))) {
            try (Lease lease = other.lock(name).acquire(Duration.ofSeconds(5))) {
                onNewNode = lease.token();
            }
        }
        assertThat(observer.checkExists().forPath(client.lock(name).tokenPath()).getVersion())
                .as("the new node has the version the first client remembers for the old one")
                .isEqualTo(1);

        long discardedBefore = client.provider().discardedGrants();
        long next;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            next = lease.token();
        }
        System.out.printf(
                "zookeeper token node recreated: first %d, on the new node %d, stale writer's %d%n",
                first, onNewNode, next);
        assertThat(client.provider().discardedGrants()).isEqualTo(discardedBefore + 1);
        assertThat(next).isGreaterThan(onNewNode).isGreaterThan(first);
    }

    /**
     * When the clock assumption breaks, tokens can go backwards: the last token of a name was issued
     * by a leader whose clock ran 10 s ahead (its node's data says so), and the sweeping client's
     * clock is further ahead of the current leader than the retention. The node is deleted too
     * early, and the next token, from the current leader's clock, is below the last one: a fence
     * that saw the last token refuses the new holder's writes as stale.
     */
    @Test
    void aBrokenClockAssumptionLetsATokenGoBackwards() throws Exception {
        String name = "broken-clock";
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(lease.token()).isPositive();
        }
        String tokenPath = client.lock(name).tokenPath();
        Stat stat = observer.checkExists().forPath(tokenPath);
        long fromAFastLeader = TokenOrder.floor(System.currentTimeMillis() + 10_000);
        observer.setData()
                .forPath(tokenPath, (fromAFastLeader + " " + stat.getCzxid()).getBytes(StandardCharsets.US_ASCII));
        long last = TokenOrder.next(
                fromAFastLeader, observer.checkExists().forPath(tokenPath).getMtime());

        Duration retention = Duration.ofMinutes(1);
        clockAheadMillis.set(Duration.ofSeconds(30).toMillis());
        assertThat(sweeper(retention).sweep().get(10, TimeUnit.SECONDS))
                .as("within the assumption (30 s ahead, retention 1 min) the node stays")
                .isZero();
        clockAheadMillis.set(retention.plusSeconds(15).toMillis());
        assertThat(sweeper(retention).sweep().get(10, TimeUnit.SECONDS))
                .as("75 s ahead of a leader that is 10 s behind the last token: assumption broken")
                .isEqualTo(1);

        client.provider().tokens().forget(tokenPath);
        long next;
        try (Lease lease = client.lock(name).acquire(Duration.ofSeconds(5))) {
            next = lease.token();
        }
        System.out.printf("zookeeper token retention, clock assumption broken: last %d, next %d%n", last, next);
        assertThat(next).as("the token went backwards").isLessThan(last);
    }

    private Map<String, Long> useNames(String prefix, int count) throws Exception {
        Map<String, Long> lastTokens = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            try (Lease lease = client.lock(prefix + i).acquire(Duration.ofSeconds(5))) {
                lastTokens.put(prefix + i, lease.token());
            }
        }
        return lastTokens;
    }

    private void assertEachNameGetsALargerToken(Map<String, Long> lastTokens) throws Exception {
        List<String> notLarger = new ArrayList<>();
        for (Map.Entry<String, Long> entry : lastTokens.entrySet()) {
            try (Lease lease = client.lock(entry.getKey()).acquire(Duration.ofSeconds(5))) {
                if (lease.token() <= entry.getValue()) {
                    notLarger.add(entry.getKey() + ": " + entry.getValue() + " then " + lease.token());
                }
            }
        }
        assertThat(notLarger)
                .as("names whose token after the deletion was not larger")
                .isEmpty();
    }
}
