package dev.fencedlock.jdbcprovider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.BackendStatus.NodeState;
import dev.fencedlock.BackendStatus.State;
import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.net.FreePorts;
import dev.fencedlock.testkit.net.TcpProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link LockClient#status()} of the jdbc backend on each database: UP with the product when the
 * lock table is usable, DOWN naming the table when it is missing, and DOWN within the operation
 * timeout when the database cannot be reached.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JdbcStatusIT {
    private static final Duration OPERATION_TIMEOUT = Duration.ofMillis(500);
    private static final Map<TestDatabase.Kind, String> PRODUCTS = Map.of(
            TestDatabase.Kind.H2, "H2 ", TestDatabase.Kind.POSTGRESQL, "PostgreSQL ", TestDatabase.Kind.MARIADB, "");

    private static BackendStatus.Node onlyNode(BackendStatus status) {
        assertThat(status.backend()).isEqualTo(JdbcLocks.BACKEND);
        assertThat(status.nodes()).hasSize(1);
        return status.nodes().get(0);
    }

    private static JdbcLockSettings.Builder settings(TestDatabase database, String url) {
        JdbcLockSettings.Builder settings =
                JdbcLockSettings.builder().url(url).user(database.user()).operationTimeout(OPERATION_TIMEOUT);
        if (!database.password().isEmpty()) {
            settings.password(database.password());
        }
        return settings;
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aUsableLockTableIsUpWithTheDatabaseProduct(TestDatabase.Kind kind) {
        try (TestDatabase database =
                        TestDatabase.create(kind, "status", 2).migrate(JdbcLockSettings.MIGRATION_LOCATION);
                LockClient client = JdbcLocks.create(
                        LockConfig.builder().backend(JdbcLocks.BACKEND).build(), database.dataSource())) {
            BackendStatus status = client.status().get(0);
            assertThat(status.state()).isEqualTo(State.UP);
            BackendStatus.Node node = onlyNode(status);
            assertThat(node.state()).isEqualTo(NodeState.ANSWERING);
            assertThat(node.detail())
                    .startsWith(PRODUCTS.get(kind))
                    .endsWith("; lock table " + JdbcLockSettings.DEFAULT_TABLE + " usable");
            if (kind == TestDatabase.Kind.MARIADB) {
                assertThat(node.detail()).containsIgnoringCase("mariadb");
            }
            assertThat(database.queryLong("SELECT COUNT(*) FROM " + JdbcLockSettings.DEFAULT_TABLE))
                    .as("a status call writes no row")
                    .isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aMissingLockTableIsDownNamingTheTable(TestDatabase.Kind kind) {
        try (TestDatabase database = TestDatabase.create(kind, "nostatus", 2);
                LockClient client = JdbcLocks.create(
                        LockConfig.builder().backend(JdbcLocks.BACKEND).build(), database.dataSource())) {
            BackendStatus status = client.status().get(0);
            assertThat(status.state()).isEqualTo(State.DOWN);
            BackendStatus.Node node = onlyNode(status);
            assertThat(node.state()).isEqualTo(NodeState.FAILING);
            assertThat(node.detail())
                    .startsWith(PRODUCTS.get(kind))
                    .contains("; lock table " + JdbcLockSettings.DEFAULT_TABLE + " not usable: ");
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.Kind.class,
            names = {"POSTGRESQL", "MARIADB"})
    void aDatabaseBehindAStalledLinkIsDownWithinTheOperationTimeoutAndUpOnceItAnswers(TestDatabase.Kind kind) {
        try (TestDatabase database =
                        TestDatabase.create(kind, "proxied", 2).migrate(JdbcLockSettings.MIGRATION_LOCATION);
                TcpProxy proxy = database.proxy();
                LockClient client = JdbcLocks.create(
                        settings(database, database.jdbcUrlThrough(proxy)).build())) {
            assertThat(client.status().get(0).state()).isEqualTo(State.UP);

            proxy.blackhole();
            long start = System.nanoTime();
            BackendStatus stalled = client.status().get(0);
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(stalled.state()).isEqualTo(State.DOWN);
            assertThat(onlyNode(stalled).state()).isEqualTo(NodeState.FAILING);
            assertThat(onlyNode(stalled).detail()).startsWith("database not reached: ");
            assertThat(tookMillis)
                    .as("status of a stalled database returns within the operation timeout plus a margin")
                    .isLessThan(OPERATION_TIMEOUT.toMillis() + 1_000);

            proxy.pass();
            assertThat(client.status().get(0).state()).isEqualTo(State.UP);
        }
    }

    @Test
    void aClosedPortIsDownAsNotReached() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL, "closed", 1);
                LockClient client = JdbcLocks.create(
                        settings(database, "jdbc:postgresql://127.0.0.1:" + FreePorts.loopback() + "/test")
                                .build())) {
            BackendStatus status = client.status().get(0);
            assertThat(status.state()).isEqualTo(State.DOWN);
            assertThat(onlyNode(status).state()).isEqualTo(NodeState.FAILING);
            assertThat(onlyNode(status).detail()).startsWith("database not reached: ");
            assertThat(onlyNode(status).address()).contains("127.0.0.1");
        }
    }
}
