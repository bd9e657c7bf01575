package dev.fencedlock.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import org.h2.api.Trigger;

/**
 * H2's trigger on a protected table: before each INSERT, UPDATE, DELETE or MERGE statement, refuses
 * it unless the session's {@link H2Fence#MARK mark} names the current transaction and a
 * fence row that this transaction holds locked (the fence guard of this very transaction ran, and no
 * rollback to a savepoint undid it; see {@link H2SessionMarks}) or an operator set {@code
 * @FENCEDLOCK_UNFENCED}. Loaded by H2 in the JVM that runs the database; one instance serves every session.
 *
 * <p>It is also where H2's alias {@code FENCEDLOCK_PROTECT} (the migration at {@code
 * classpath:db/fencedlock/h2}) installs it: {@link #protect}. H2 keeps both names in the
 * database, so the class keeps its name.
 */
public final class H2FenceTrigger implements Trigger {
    static final String SQLSTATE = "23F01";
    /** The session variable an operator sets to write protected tables deliberately unfenced. */
    static final String BYPASS = "@FENCEDLOCK_UNFENCED";

    private static final String MARKS = "select cast(" + H2Fence.MARK
            + " as varchar), cast(transaction_id() as varchar), " + BYPASS + " is not null";

    private volatile String table;
    private volatile String operations;
    /** Null where the sessions cannot be read directly: the trigger then runs its query. */
    private volatile H2SessionMarks marks;

    /** {@code FENCEDLOCK_PROTECT}: protects {@code table}; H2 passes the calling session's connection to an alias. */
    public static void protect(Connection connection, String table) throws SQLException {
        TableNames.requireValid(table);
        new H2Fence(dev.fencedlock.jdbc.FenceTable.DEFAULT_NAME).protect(connection, table);
    }

    @Override
    public void init(
            Connection connection, String schemaName, String triggerName, String tableName, boolean before, int type) {
        this.table = schemaName + "." + tableName;
        this.operations = operations(type);
        this.marks = H2SessionMarks.of(connection).orElse(null);
    }

    @Override
    public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
        H2SessionMarks direct = marks;
        Optional<Boolean> read = direct == null ? Optional.empty() : direct.fencedOrBypassed(connection);
        if (read.isPresent() ? read.get() : queryMarks(connection)) {
            return;
        }
        throw new SQLException(
                "fencedlock: " + operations + " on protected table " + table + " outside a fenced transaction is "
                        + "refused. Write it in a fenced transaction (JdbcFencing.inTransaction, fencing-jpa's "
                        + "Fencing.bind, Spring's @Locked) so that the fence guard runs first; an operator's "
                        + "deliberate fix-up runs SET @FENCEDLOCK_UNFENCED = '<reason>' first (for the session, until "
                        + "set to NULL)",
                SQLSTATE);
    }

    /**
     * The marks read with queries, where {@link H2SessionMarks} cannot read the session directly
     * (an H2 whose engine classes differ): the mark must name the current transaction, and the
     * fence row it names must hold the mark's token as this transaction sees it. Weaker than the
     * direct read, which asks whether the transaction holds the row: a guard undone by a rollback
     * to a savepoint still passes here while no other holder has raised the row since.
     */
    static boolean queryMarks(Connection connection) throws SQLException {
        H2SessionMarks.Mark mark;
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(MARKS)) {
            if (!result.next()) {
                return false;
            }
            if (result.getBoolean(3)) {
                return true;
            }
            String text = result.getString(1);
            String transaction = result.getString(2);
            mark = text == null || transaction == null ? null : H2SessionMarks.Mark.parse(text);
            if (mark == null || !Long.toString(mark.transaction()).equals(transaction)) {
                return false;
            }
        }
        try {
            TableNames.requireValid(mark.table());
        } catch (IllegalArgumentException e) {
            return false;
        }
        try (PreparedStatement statement =
                connection.prepareStatement("select token from " + mark.table() + " where lock_name = ?")) {
            statement.setString(1, mark.lockName());
            try (ResultSet row = statement.executeQuery()) {
                return row.next() && row.getLong(1) == mark.token();
            }
        }
    }

    private static String operations(int type) {
        StringBuilder names = new StringBuilder();
        if ((type & INSERT) != 0) {
            names.append("INSERT");
        }
        if ((type & UPDATE) != 0) {
            names.append(names.isEmpty() ? "" : "/").append("UPDATE");
        }
        if ((type & DELETE) != 0) {
            names.append(names.isEmpty() ? "" : "/").append("DELETE");
        }
        return names.toString();
    }
}
