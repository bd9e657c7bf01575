package dev.fencedlock.jdbc.internal;

import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A statement the work prepared before its transaction's guard entered ({@link DeferredGuard}).
 * Until it first executes it records its parameters and settings; its first plain execution
 * ({@code execute()}, {@code executeQuery()}, {@code executeUpdate()}, {@code
 * executeLargeUpdate()}) while the guard has not entered sends the guard and the statement in one
 * round trip. Any other use first has the guard run alone (a batch, metadata, a positive fetch
 * size, which asks for rows in chunks, a stream parameter, which could not be sent twice) and then
 * works on a statement of its own, as does every use after the first execution; the limits set on
 * it ({@code getMaxRows}, {@code getLargeMaxRows}, {@code getQueryTimeout}) are answered without
 * either. The result set of
 * the first execution belongs to the statement that ran behind the guard: its {@code
 * getStatement()} is that statement, not this one.
 *
 * <p>Not thread-safe, like the statement it stands for.
 */
final class DeferredGuardStatement implements java.lang.reflect.InvocationHandler, DeferredGuard.StatementParameters {
    /** Statement settings recorded until a statement exists. */
    private static final Set<String> SETTINGS = Set.of(
            "setFetchSize",
            "setMaxRows",
            "setLargeMaxRows",
            "setQueryTimeout",
            "setFetchDirection",
            "setEscapeProcessing",
            "setPoolable",
            "setCursorName",
            "closeOnCompletion");

    /** The executions that can carry the guard, without arguments. */
    private static final Set<String> EXECUTIONS =
            Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    /**
     * Getters of settings that never reach the database, answered from the recorded settings (or
     * JDBC's default) while the statement has no statement of its own: Hibernate asks them of every
     * statement it closes, also one that never ran.
     */
    private static final Map<String, Object> LOCAL_GETTERS =
            Map.of("getMaxRows", 0, "getLargeMaxRows", 0L, "getQueryTimeout", 0);

    /** What tells about the last execution's results: asked of the statement that ran it. */
    private static final Set<String> RESULTS = Set.of(
            "getResultSet", "getUpdateCount", "getLargeUpdateCount", "getMoreResults", "getWarnings", "clearWarnings");

    private final Connection connection;
    private final Connection owner;
    private final DeferredGuard guard;
    private final String sql;
    private final Map<Integer, Call> parameters = new LinkedHashMap<>();
    private final List<Call> settings = new ArrayList<>();
    private boolean chunked;
    private boolean streamed;
    /** The statement that ran behind the guard, until another execution replaces its results. */
    private PreparedStatement pipelined;
    /** The statement for every use but the first execution, made when first needed. */
    private PreparedStatement plain;

    private boolean closed;

    private DeferredGuardStatement(Connection connection, Connection owner, DeferredGuard guard, String sql) {
        this.connection = connection;
        this.owner = owner;
        this.guard = guard;
        this.sql = sql;
    }

    /**
     * A statement for {@code sql} on {@code connection}, which the work sees as prepared on {@code
     * owner}.
     */
    static PreparedStatement create(Connection connection, Connection owner, DeferredGuard guard, String sql) {
        return (PreparedStatement) Proxy.newProxyInstance(
                DeferredGuardStatement.class.getClassLoader(),
                new Class<?>[] {PreparedStatement.class},
                new DeferredGuardStatement(connection, owner, guard, sql));
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        Object identity = DeferredGuardConnection.identity(self, this, method, args);
        if (identity != null) {
            return identity;
        }
        String name = method.getName();
        switch (name) {
            case "getConnection":
                return owner;
            case "isClosed":
                return closed;
            case "close":
                close();
                return null;
            default:
                break;
        }
        if (closed) {
            throw new SQLException("This statement has been closed: " + sql, "55000");
        }
        if (pipelined != null && RESULTS.contains(name)) {
            return DeferredGuardConnection.call(pipelined, method, args);
        }
        if (plain == null && pipelined == null && record(method, args)) {
            return null;
        }
        if (plain == null && LOCAL_GETTERS.containsKey(name)) {
            return recorded(name);
        }
        if (args == null && EXECUTIONS.contains(name) && canCarryGuard()) {
            DeferredGuard.Executed executed = guard.executeBehindGuard(sql, this);
            if (executed != null) {
                pipelined = executed.statement();
                return firstResult(name, executed);
            }
        }
        PreparedStatement statement = plain();
        if (name.startsWith("execute") && pipelined != null) {
            // a new execution ends the results of the one behind the guard, as on any statement
            closePipelined();
        }
        return DeferredGuardConnection.call(statement, method, args);
    }

    /** Records a parameter or a setting while no statement exists; false for any other call. */
    private boolean record(Method method, Object[] args) {
        String name = method.getName();
        if (isParameterSetter(method)) {
            for (Object arg : args) {
                streamed |= arg instanceof InputStream || arg instanceof Reader;
            }
            parameters.remove((Integer) args[0]);
            parameters.put((Integer) args[0], new Call(method, args));
            return true;
        }
        if (name.equals("clearParameters")) {
            parameters.clear();
            streamed = false;
            return true;
        }
        if (SETTINGS.contains(name)) {
            if (name.equals("setFetchSize")) {
                chunked = (Integer) args[0] > 0;
            }
            settings.add(new Call(method, args));
            return true;
        }
        return false;
    }

    /** The value the last recorded setter of {@code getter}'s setting set, else its default. */
    private Object recorded(String getter) {
        String setter = "s" + getter.substring(1);
        Object value = LOCAL_GETTERS.get(getter);
        for (Call setting : settings) {
            if (setting.method.getName().equals(setter)) {
                value = setting.args[0];
            }
        }
        return value;
    }

    private static boolean isParameterSetter(Method method) {
        Class<?>[] types = method.getParameterTypes();
        return method.getDeclaringClass() == PreparedStatement.class
                && method.getName().startsWith("set")
                && types.length > 0
                && types[0] == int.class;
    }

    private boolean canCarryGuard() {
        return !guard.entered() && plain == null && pipelined == null && !chunked && !streamed;
    }

    private Object firstResult(String execution, DeferredGuard.Executed executed) throws SQLException {
        PreparedStatement statement = executed.statement();
        switch (execution) {
            case "executeQuery":
                if (!executed.resultSet()) {
                    throw new SQLException("No results were returned by the query: " + sql, "02000");
                }
                return statement.getResultSet();
            case "executeUpdate":
                requireNoResultSet(executed);
                return statement.getUpdateCount();
            case "executeLargeUpdate":
                requireNoResultSet(executed);
                return statement.getLargeUpdateCount();
            default:
                return executed.resultSet();
        }
    }

    private void requireNoResultSet(DeferredGuard.Executed executed) throws SQLException {
        if (executed.resultSet()) {
            throw new SQLException("A result was returned when none was expected: " + sql, "0100E");
        }
    }

    /** The statement of its own, after the guard has entered alone if it had not. */
    private PreparedStatement plain() throws SQLException {
        if (plain == null) {
            guard.enterAlone();
            plain = connection.prepareStatement(sql);
            applyTo(plain, 0);
        }
        return plain;
    }

    @Override
    public void applyTo(PreparedStatement statement, int offset) throws SQLException {
        try {
            for (Call setting : settings) {
                DeferredGuardConnection.call(statement, setting.method, setting.args);
            }
            for (Call parameter : parameters.values()) {
                Object[] shifted = parameter.args.clone();
                shifted[0] = (Integer) shifted[0] + offset;
                DeferredGuardConnection.call(statement, parameter.method, shifted);
            }
        } catch (SQLException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new SQLException("could not set a parameter of " + sql, e);
        }
    }

    private void closePipelined() throws SQLException {
        PreparedStatement statement = pipelined;
        pipelined = null;
        statement.close();
    }

    private void close() throws SQLException {
        if (closed) {
            return;
        }
        closed = true;
        SQLException failure = null;
        for (PreparedStatement statement : new PreparedStatement[] {pipelined, plain}) {
            if (statement == null) {
                continue;
            }
            try {
                statement.close();
            } catch (SQLException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        pipelined = null;
        plain = null;
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "statement of a fenced transaction of lock '" + guard.lockName() + "': " + sql;
    }

    private record Call(Method method, Object[] args) {}
}
