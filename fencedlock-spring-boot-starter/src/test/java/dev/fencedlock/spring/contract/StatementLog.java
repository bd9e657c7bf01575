package dev.fencedlock.spring.contract;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The SQL a thread sends, in the order it is executed: a data source whose connections record
 * each statement's SQL when it runs, on the thread that runs it, while {@link #record} runs there.
 * Everything else passes through unchanged. Thread-safe; recordings are per thread.
 */
final class StatementLog {
    private final ThreadLocal<List<String>> recording = new ThreadLocal<>();

    /** An action that may throw. */
    @FunctionalInterface
    interface Action {
        void run() throws Exception;
    }

    /** {@code target} with its connections' statements recorded. */
    DataSource wrap(DataSource target) {
        return new DelegatingDataSource(target) {
            @Override
            public Connection getConnection() throws SQLException {
                return connection(super.getConnection());
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                return connection(super.getConnection(username, password));
            }
        };
    }

    /** The SQL of every statement executed on this thread while {@code action} ran, in order. */
    List<String> record(Action action) throws Exception {
        List<String> sent = new ArrayList<>();
        recording.set(sent);
        try {
            action.run();
        } finally {
            recording.remove();
        }
        return sent;
    }

    private Connection connection(Connection target) {
        return proxy(Connection.class, (method, args) -> {
            Object result = invoke(target, method, args);
            String name = method.getName();
            if (result instanceof CallableStatement call && name.startsWith("prepare")) {
                return statement(CallableStatement.class, call, (String) args[0]);
            }
            if (result instanceof PreparedStatement prepared && name.startsWith("prepare")) {
                return statement(PreparedStatement.class, prepared, (String) args[0]);
            }
            if (result instanceof Statement statement && name.equals("createStatement")) {
                return statement(Statement.class, statement, null);
            }
            return result;
        });
    }

    /** Records each {@code execute*} call's SQL: its argument, else {@code prepared}. */
    private <T extends Statement> T statement(Class<T> type, T target, String prepared) {
        return proxy(type, (method, args) -> {
            List<String> sent = recording.get();
            if (sent != null && method.getName().startsWith("execute")) {
                sent.add(args != null && args.length > 0 && args[0] instanceof String given ? given : prepared);
            }
            return invoke(target, method, args);
        });
    }

    @FunctionalInterface
    private interface Call {
        Object invoke(Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, Call call) {
        return type.cast(Proxy.newProxyInstance(
                StatementLog.class.getClassLoader(),
                new Class<?>[] {type},
                (proxy, method, args) -> call.invoke(method, args)));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
