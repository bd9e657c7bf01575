package dev.fencedlock.jpa.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What SQL texts write, as {@link WrittenTables} reads them, remembered per text. Hibernate
 * prepares the same few texts for every flush, and reading one costs several regular expressions;
 * the statement inspector asks on every statement. At most {@link #CAPACITY} texts are remembered
 * (native SQL with literals in it can make texts without end); a text beyond that is read each
 * time, with the same answer. Thread-safe.
 */
final class StatementShapes {
    static final int CAPACITY = 2048;

    private final Map<String, StatementShape> shapes = new ConcurrentHashMap<>();

    /** The shape of {@code sql}, remembered if there is room. */
    StatementShape of(String sql) {
        StatementShape known = shapes.get(sql);
        if (known != null) {
            return known;
        }
        StatementShape shape = new StatementShape(sql);
        if (shapes.size() < CAPACITY) {
            StatementShape raced = shapes.putIfAbsent(sql, shape);
            return raced == null ? shape : raced;
        }
        return shape;
    }

    int size() {
        return shapes.size();
    }
}
