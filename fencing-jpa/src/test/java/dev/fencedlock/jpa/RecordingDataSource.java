package dev.fencedlock.jpa;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A data source that records the SQL its connections send to the driver, in order: what the
 * database receives, whoever produced it. Thread-safe.
 */
final class RecordingDataSource {
    /** One statement sent on a connection (numbered in the order connections were handed out). */
    record Sent(int connection, String sql) {}

    private final List<Sent> sent = new ArrayList<>();
    private int connections;

    /** {@code target} with recording connections. */
    DataSource around(DataSource target) {
        return proxy(DataSource.class, target, (method, args, result) -> {
            if (result instanceof Connection connection) {
                int number;
                synchronized (this) {
                    number = ++connections;
                }
                return recording(connection, number);
            }
            return result;
        });
    }

    synchronized void clear() {
        sent.clear();
    }

    synchronized List<Sent> sent() {
        return List.copyOf(sent);
    }

    private Connection recording(Connection connection, int number) {
        return proxy(Connection.class, connection, (method, args, result) -> {
            if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                record(number, sql);
            }
            if (result instanceof Statement statement && method.getName().equals("createStatement")) {
                return proxy(Statement.class, statement, (m, a, r) -> r, (m, a) -> {
                    if (m.getName().startsWith("execute") && a != null && a[0] instanceof String sql) {
                        record(number, sql);
                    }
                });
            }
            return result;
        });
    }

    private synchronized void record(int connection, String sql) {
        sent.add(new Sent(connection, sql));
    }

    @FunctionalInterface
    private interface After {
        Object apply(Method method, Object[] args, Object result) throws Exception;
    }

    @FunctionalInterface
    private interface Before {
        void accept(Method method, Object[] args);
    }

    private static <T> T proxy(Class<T> type, T target, After after) {
        return proxy(type, target, after, (m, a) -> {});
    }

    private static <T> T proxy(Class<T> type, T target, After after, Before before) {
        InvocationHandler handler = (self, method, args) -> {
            before.accept(method, args);
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return after.apply(method, args, result);
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
