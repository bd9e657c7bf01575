package dev.fencedlock.jpa.internal;

import dev.fencedlock.jpa.FencingToken;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Optional;

/**
 * The {@link FencingToken} field of an entity class, found once per class and cached. Reads and
 * writes go straight to the field, as Hibernate's field access does. Thread-safe.
 */
final class FenceField {
    private static final ClassValue<Optional<FenceField>> BY_CLASS = new ClassValue<>() {
        @Override
        protected Optional<FenceField> computeValue(Class<?> type) {
            return find(type);
        }
    };

    private final Field field;

    private FenceField(Field field) {
        this.field = field;
    }

    /**
     * The fence field of {@code type} or of one of its superclasses, empty if it has none.
     *
     * @throws IllegalArgumentException if the class hierarchy declares more than one, or the field
     *     is not a non-static, non-final {@code long}
     */
    public static Optional<FenceField> of(Class<?> type) {
        return BY_CLASS.get(type);
    }

    /**
     * Like {@link #of}, but for an entity that must be fenced.
     *
     * @throws IllegalStateException if {@code type} has no fence field
     */
    static FenceField require(Class<?> type) {
        return of(type).orElseThrow(() -> new IllegalStateException(
                "Entity class " + type.getName() + " has no @FencingToken field; add a 'long' field annotated "
                        + "@FencingToken or remove FencingListener from its @EntityListeners"));
    }

    /** The field's name, which is also its persistent attribute name. */
    public String name() {
        return field.getName();
    }

    public Class<?> declaringClass() {
        return field.getDeclaringClass();
    }

    long get(Object entity) {
        try {
            return field.getLong(entity);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot read fence field " + this, e);
        }
    }

    void set(Object entity, long value) {
        try {
            field.setLong(entity, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot write fence field " + this, e);
        }
    }

    @Override
    public String toString() {
        return field.getDeclaringClass().getName() + "." + field.getName();
    }

    private static Optional<FenceField> find(Class<?> type) {
        Field found = null;
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field candidate : c.getDeclaredFields()) {
                if (!candidate.isAnnotationPresent(FencingToken.class)) {
                    continue;
                }
                if (found != null) {
                    throw new IllegalArgumentException("Entity class " + type.getName()
                            + " has more than one @FencingToken field: " + describe(found) + " and "
                            + describe(candidate));
                }
                found = candidate;
            }
        }
        if (found == null) {
            return Optional.empty();
        }
        int modifiers = found.getModifiers();
        if (found.getType() != long.class || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new IllegalArgumentException("@FencingToken field " + describe(found)
                    + " must be a non-static, non-final 'long', but is '" + Modifier.toString(modifiers) + " "
                    + found.getType().getName() + "'");
        }
        found.setAccessible(true);
        return Optional.of(new FenceField(found));
    }

    private static String describe(Field field) {
        return field.getDeclaringClass().getName() + "." + field.getName();
    }
}
