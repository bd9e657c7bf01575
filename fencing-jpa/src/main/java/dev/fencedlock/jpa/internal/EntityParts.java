package dev.fencedlock.jpa.internal;

import dev.fencedlock.jpa.FencingToken;
import java.lang.reflect.Field;
import java.util.LinkedHashSet;
import java.util.Set;
import org.hibernate.MappingException;
import org.hibernate.mapping.Collection;
import org.hibernate.mapping.Component;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.Property;
import org.hibernate.mapping.Table;
import org.hibernate.mapping.Value;

/**
 * What an entity's embedded values and collections add to its fencing, found by walking its
 * mapping, embedded values within embedded values included. Stateless.
 */
final class EntityParts {
    private EntityParts() {}

    /**
     * Refuses a {@link FencingToken} field inside an embeddable of {@code entity} (its id, its
     * attributes, its collections' elements): the fence must be a field of the entity class or a
     * superclass, or the entity would not be fenced at all.
     *
     * @throws MappingException naming the field, the embeddable and the entity
     */
    static void refuseFencesInEmbeddables(PersistentClass entity) {
        if (entity.getIdentifier() != null) {
            visit(entity, entity.getIdentifier(), null);
        }
        for (Property property : entity.getPropertyClosure()) {
            visit(entity, property.getValue(), null);
        }
    }

    /**
     * The tables that {@code entity}'s own collections write: element collection tables and join
     * tables, also of collections inside embedded values. Not the child's table of a one-to-many by
     * join column (the child entity's table, whose link column the collection sets), nor the table
     * of an inverse ({@code mappedBy}) collection, which the owning side writes.
     */
    static Set<Table> collectionTables(PersistentClass entity) {
        Set<Table> tables = new LinkedHashSet<>();
        for (Property property : entity.getPropertyClosure()) {
            visit(entity, property.getValue(), tables);
        }
        tables.remove(entity.getTable());
        return tables;
    }

    private static void visit(PersistentClass entity, Value value, Set<Table> tables) {
        if (value instanceof Component component) {
            if (tables == null) {
                refuseFence(entity, component);
            }
            for (Property property : component.getProperties()) {
                visit(entity, property.getValue(), tables);
            }
        } else if (value instanceof Collection collection) {
            if (tables != null
                    && collection.getCollectionTable() != null
                    && !collection.isOneToMany()
                    && !collection.isInverse()) {
                tables.add(collection.getCollectionTable());
            }
            visit(entity, collection.getElement(), tables);
        }
    }

    private static void refuseFence(PersistentClass entity, Component component) {
        Class<?> type = component.getComponentClass();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                if (field.isAnnotationPresent(FencingToken.class)) {
                    throw new MappingException("@FencingToken field " + c.getName() + "." + field.getName()
                            + " is in @Embeddable " + type.getName() + ", used by entity " + entity.getEntityName()
                            + ": a fence inside an embedded value is not seen, and the entity would be written "
                            + "unfenced. Move the field to the entity class (or a @MappedSuperclass of it)");
                }
            }
        }
    }
}
