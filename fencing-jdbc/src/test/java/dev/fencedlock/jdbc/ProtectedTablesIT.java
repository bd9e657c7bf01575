package dev.fencedlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.testkit.db.TestDatabase;
import dev.fencedlock.testkit.db.TestDatabase.Kind;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Protected tables: the database refuses every write outside a fenced transaction, whatever sends
 * it, and lets fenced ones through. Each database gets a private schema with a protected table
 * {@code item} and an unprotected {@code note}.
 */
class ProtectedTablesIT {
    private static final AtomicLong TOKENS = new AtomicLong(1);
    private static final List<TestDatabase> OPEN = new ArrayList<>();

    @AfterAll
    static void close() {
        OPEN.forEach(TestDatabase::close);
    }

    private static TestDatabase database(Kind kind) throws SQLException {
        TestDatabase db = TestDatabase.createShared(kind, "fjpt", 4).migrate(FenceDatabases.MIGRATION);
        synchronized (OPEN) {
            OPEN.add(db);
        }
        db.execute("create table item (id bigint primary key, quantity bigint not null)");
        db.execute("create table note (id bigint primary key, body varchar(100))");
        db.execute("insert into item values (1, 10), (2, 20)");
        FencedTables.protect(db.dataSource(), "item");
        return db;
    }

    /**
     * The statements a client-side SQL inspector could not read: each runs
     * unfenced and is refused by the database, naming the table; nothing changes.
     */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void unfencedWritesOfEveryShapeAreRefusedNamingTheTable(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        List<String> writes = new ArrayList<>(List.of(
                "insert into item values (3, 30)",
                "update item set quantity = 0",
                "update /* c */ item set quantity = 0 where id = 1",
                "delete /* c */ from item where id = 1",
                "delete from item"));
        if (kind == Kind.POSTGRESQL) {
            writes.addAll(List.of(
                    "delete from only item",
                    "explain analyze delete from item",
                    "with x as (select 1) update item set quantity = 0",
                    "insert into item values (1, 5) on conflict (id) do update set quantity = 5",
                    "truncate item"));
        } else if (kind == Kind.H2) {
            writes.addAll(List.of("merge into item key (id) values (1, 5)", "update \"ITEM\" set quantity = 0"));
        } else {
            // What fencing-jpa's client-side check let through on MariaDB
            writes.addAll(List.of(
                    "/*!update item set quantity = 0*/",
                    "/*M!100000 update item set quantity = 0*/",
                    "update /*!item*/ set quantity = 0",
                    "update /*!50000 item*/ set quantity = 0",
                    "execute immediate 'update item set quantity = 0'",
                    "execute immediate concat('update it', 'em set quantity = 0')",
                    "replace into item values (1, 5)",
                    "insert into item values (1, 5) on duplicate key update quantity = 5",
                    "update item i join item j on j.id = i.id set i.quantity = 0",
                    "delete i from item i"));
        }
        for (String write : writes) {
            try (Connection connection = db.connection();
                    Statement statement = connection.createStatement()) {
                SQLException refused = catchThrowableOfType(SQLException.class, () -> execute(statement, write));
                assertThat((Throwable) refused).as(write).isNotNull();
                assertThat(refused.getSQLState()).as(write).isEqualTo(FencedTables.REFUSED_SQLSTATE);
                assertThat(refused.getMessage())
                        .as(write)
                        .containsIgnoringCase("item")
                        .contains("fenced");
            }
        }
        assertThat(db.queryLong("select sum(quantity) from item")).isEqualTo(30);
        assertThat(db.queryLong("select count(*) from item")).isEqualTo(2);
        db.execute("insert into note values (1, 'unprotected tables are not affected')");
    }

    /** Fenced transactions write; the mark ends with each transaction and never reaches the next. */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void onlyTheFencedTransactionItselfMayWrite(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        try (Connection connection = db.connection()) {
            JdbcFencing.inTransaction(connection, lease(), c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.executeUpdate("update item set quantity = quantity - 1 where id = 1");
                }
            });
            assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(9);

            connection.setAutoCommit(false);
            assertRefusedInTransaction(
                    connection,
                    "update item set quantity = 0 where id = 1",
                    "the next transaction on the same connection, without the guard");
        }
        assertThat(db.queryLong("select quantity from item where id = 1")).isEqualTo(9);
    }

    /** A transaction whose guard refused it is not marked: a caller that swallows the refusal still cannot write. */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void aRefusedGuardLeavesTheTransactionUnmarked(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        long newer = TOKENS.addAndGet(10);
        JdbcFencing.inTransaction(db.dataSource(), new FixedLease("stock", newer), c -> 1);
        try (Connection connection = db.connection()) {
            connection.setAutoCommit(false);
            assertThatThrownBy(() -> Fences.enter(connection, "stock", newer - 5))
                    .isInstanceOf(FenceRefusedException.class);
            assertRefusedInTransaction(connection, "delete from item", "after the refused guard");
        }
        assertThat(db.queryLong("select count(*) from item")).isEqualTo(2);
    }

    /** Another application, in its own JVM with only the JDBC driver on its class path, is refused too. */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void anotherApplicationWithoutFencedlockIsRefused(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        List<String> out = runSecondApplication(
                db,
                kind,
                "update item set quantity = 0",
                "delete from item where id = 2",
                "insert into note values (7, 'x')");
        assertThat(out).hasSize(3);
        assertThat(out.get(0))
                .startsWith("REFUSED " + FencedTables.REFUSED_SQLSTATE)
                .containsIgnoringCase("item");
        assertThat(out.get(1)).startsWith("REFUSED " + FencedTables.REFUSED_SQLSTATE);
        assertThat(out.get(2)).isEqualTo("OK");
        assertThat(db.queryLong("select sum(quantity) from item")).isEqualTo(30);
    }

    /** psql, where it is installed, is refused the same way (the PostgreSQL client on this machine). */
    @Test
    void adHocSqlFromPsqlIsRefused() throws Exception {
        TestDatabase db = database(Kind.POSTGRESQL);
        File psql = new File("/usr/bin/psql");
        org.junit.jupiter.api.Assumptions.assumeTrue(psql.canExecute(), "psql is not installed");
        ProcessBuilder builder = new ProcessBuilder(
                        psql.getPath(),
                        "-h",
                        "127.0.0.1",
                        "-U",
                        db.user(),
                        "-d",
                        "test",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-c",
                        "set search_path = " + db.schema(),
                        "-c",
                        "update item set quantity = 0")
                .redirectErrorStream(true);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(output).contains("outside a fenced transaction").contains("item");
        assertThat(process.exitValue()).isNotZero();
        assertThat(db.queryLong("select sum(quantity) from item")).isEqualTo(30);
    }

    /** The operator's way around the fence works for its own transaction only. */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"POSTGRESQL", "H2", "MARIADB"})
    void anOperatorsDeliberateFixUpIsLetThroughForItsTransactionOnly(Kind kind) throws Exception {
        TestDatabase db = database(kind);
        try (Connection connection = db.connection()) {
            int changed = FencedTables.unfenced(connection, "ticket 42: restock", c -> {
                try (Statement statement = c.createStatement()) {
                    return statement.executeUpdate("update item set quantity = 100 where id = 2");
                }
            });
            assertThat(changed).isEqualTo(1);
            try (Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.executeUpdate("update item set quantity = 0 where id = 2"))
                        .hasMessageContaining("outside a fenced transaction");
            }
        }
        assertThat(db.queryLong("select quantity from item where id = 2")).isEqualTo(100);
        try (Connection connection = db.connection()) {
            assertThatThrownBy(() -> FencedTables.unfenced(connection, " ", c -> 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reason");
        }
    }

    /** protect() is idempotent and unprotected() names what is left, on every database. */
    @Test
    void protectIsIdempotentAndUnprotectedNamesTheRest() throws Exception {
        for (Kind kind : Kind.values()) {
            TestDatabase db = database(kind);
            FencedTables.protect(db.dataSource(), "item");
            try (Connection connection = db.connection()) {
                assertThat(FencedTables.unprotected(connection, List.of("item", "note")))
                        .as("%s", kind)
                        .containsExactly("note");
            }
            assertThatThrownBy(() -> FencedTables.protect(db.dataSource(), "item; drop table note"))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * Runs {@code sql} in the connection's open transaction, expects the trigger's refusal, rolls
     * back and returns the connection to autocommit.
     */
    private static void assertRefusedInTransaction(Connection connection, String sql, String description)
            throws SQLException {
        try (Statement statement = connection.createStatement()) {
            assertThatThrownBy(() -> statement.executeUpdate(sql))
                    .as(description)
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("outside a fenced transaction");
        } finally {
            connection.rollback();
            connection.setAutoCommit(true);
        }
    }

    private static void execute(Statement statement, String sql) throws SQLException {
        statement.execute(sql);
    }

    private static FixedLease lease() {
        return new FixedLease("stock", TOKENS.incrementAndGet());
    }

    private static List<String> runSecondApplication(TestDatabase db, Kind kind, String... statements)
            throws IOException, InterruptedException, URISyntaxException, SQLException {
        Driver driver = DriverManager.getDriver(db.jdbcUrl());
        String driverJar = Path.of(driver.getClass()
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        Path source = Path.of(
                ProtectedTablesIT.class.getResource("/SecondApplication.java").toURI());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                driverJar,
                source.toString(),
                db.jdbcUrl(),
                db.user(),
                db.password() == null ? "" : db.password()));
        command.addAll(List.of(statements));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        assertThat(System.getProperty("java.class.path"))
                .as("the test's own class path")
                .contains("fencing-jdbc");
        return output.lines()
                .filter(l -> l.startsWith("OK") || l.startsWith("REFUSED"))
                .toList();
    }
}
