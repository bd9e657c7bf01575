package dev.fencedlock.faults;

import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.client.FourLetterWordMain;

/** ZooKeeper servers and clients for the scenarios. */
final class ZooKeeperSetup {
    /** A short tick, so that sessions can be short; no fsync: the scenarios test the protocol. */
    private static final int TICK_MS = 200;

    private static final Map<String, Object> SERVER_PROPERTIES =
            Map.of("maxSessionTimeout", "60000", "forceSync", "no");

    private ZooKeeperSetup() {}

    private static InstanceSpec spec() {
        return new InstanceSpec(null, -1, -1, -1, true, -1, TICK_MS, -1, SERVER_PROPERTIES, null);
    }

    static TestingServer server() throws Exception {
        return new TestingServer(spec(), true);
    }

    static TestingCluster cluster(int servers) {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int i = 0; i < servers; i++) {
            specs.add(spec());
        }
        return new TestingCluster(specs);
    }

    static LockConfig.Builder config(String connect, Duration sessionTimeout, Duration leaseTime) {
        return LockConfig.builder()
                .backend("zookeeper")
                .zookeeperConnect(connect)
                .zookeeperSessionTimeout(sessionTimeout)
                .leaseTime(leaseTime);
    }

    /** The server's {@code srvr} status, or why it could not be read. */
    static String mode(InstanceSpec spec) {
        try {
            return FourLetterWordMain.send4LetterWord(spec.getHostname(), spec.getPort(), "srvr");
        } catch (Exception e) {
            return "not serving: " + e;
        }
    }
}
