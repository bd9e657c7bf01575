package dev.fencedlock.testkit.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.testkit.db.TestDatabase.Kind;
import dev.fencedlock.testkit.net.TcpProxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Private schemas on the three test databases. */
class PrivateSchemaIT {
    private static final String MIGRATIONS = "classpath:db/testkit";

    @ParameterizedTest
    @EnumSource(Kind.class)
    void twoInstancesGetSeparateMigratedSchemasAndCloseDropsEach(Kind kind) {
        try (TestDatabase first = TestDatabase.create(kind).migrate(MIGRATIONS);
                TestDatabase second = TestDatabase.create(kind).migrate(MIGRATIONS)) {
            assertThat(first.schema()).isNotEqualTo(second.schema());
            first.execute("INSERT INTO item (name) VALUES (?)", "a");
            assertThat(first.queryLong("SELECT COUNT(*) FROM item")).isEqualTo(1L);
            assertThat(second.queryLong("SELECT COUNT(*) FROM item")).isZero();
            first.close();
            assertThat(second.queryLong("SELECT COUNT(*) FROM item")).isZero();
            assertThat(schemaExists(second, first.schema()))
                    .as("dropped schema " + first.schema())
                    .isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aSharedDatabaseIsReachableByItsUrlUntilClosed(Kind kind) throws SQLException {
        TestDatabase shared = TestDatabase.createShared(kind, "shared", 2).migrate(MIGRATIONS);
        shared.execute("INSERT INTO item (name) VALUES (?)", "seen elsewhere");
        try (Connection other = DriverManager.getConnection(shared.jdbcUrl(), shared.user(), shared.password());
                Statement statement = other.createStatement();
                ResultSet rows = statement.executeQuery("SELECT name FROM item")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getString(1)).isEqualTo("seen elsewhere");
        }
        shared.close();
        if (kind == Kind.H2) {
            assertThatThrownBy(() -> DriverManager.getConnection(shared.jdbcUrl(), shared.user(), shared.password())
                            .close())
                    .as("the H2 TCP server is stopped")
                    .isInstanceOf(SQLException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aProxyInFrontOfTheServerCarriesConnectionsUntilItIsReset(Kind kind) throws SQLException {
        try (TestDatabase database =
                        TestDatabase.createShared(kind, "proxied", 2).migrate(MIGRATIONS);
                TcpProxy proxy = database.proxy()) {
            database.execute("INSERT INTO item (name) VALUES (?)", "through the proxy");
            String url = database.jdbcUrlThrough(proxy);
            assertThat(url).contains(":" + proxy.port() + "/").isNotEqualTo(database.jdbcUrl());
            try (Connection through = DriverManager.getConnection(url, database.user(), database.password());
                    Statement statement = through.createStatement();
                    ResultSet rows = statement.executeQuery("SELECT name FROM item")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo("through the proxy");
            }
            assertThat(proxy.acceptedConnections()).isEqualTo(1);
            proxy.reset();
            assertThatThrownBy(() -> DriverManager.getConnection(url, database.user(), database.password())
                            .close())
                    .as("refused by the proxy, not reached around it")
                    .isInstanceOf(SQLException.class);
        }
    }

    @Test
    void anInMemoryH2DatabaseHasNoServerToProxy() {
        try (TestDatabase database = TestDatabase.create(Kind.H2)) {
            assertThatThrownBy(database::proxy)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(database.jdbcUrl());
        }
    }

    private static boolean schemaExists(TestDatabase on, String schema) {
        Long count = switch (on.kind()) {
            case H2 -> 0L; // an in-memory database: nothing survives SHUTDOWN
            case POSTGRESQL, MARIADB ->
                on.queryLong("SELECT COUNT(*) FROM information_schema.schemata WHERE LOWER(schema_name) = ?", schema);
        };
        return count != null && count > 0;
    }
}
