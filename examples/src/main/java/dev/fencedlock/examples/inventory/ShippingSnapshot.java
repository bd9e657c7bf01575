package dev.fencedlock.examples.inventory;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the shipping service's database holds at the end of a run, set against the inventory
 * database's committed orders.
 *
 * @param shipments shipments recorded
 * @param withoutCommittedOrder shipments whose order did not commit in the inventory database (a
 *     stale holder's call that the service accepted; should be none)
 * @param ordersNotShipped committed orders with no shipment
 * @param refusals the stale calls the service refused with 409, as it lists them: {@code <lock>
 *     <presented token> <newer token>}
 */
record ShippingSnapshot(long shipments, long withoutCommittedOrder, long ordersNotShipped, List<String> refusals) {
    ShippingSnapshot {
        refusals = List.copyOf(refusals);
    }

    static ShippingSnapshot of(Collection<OrderKey> shipped, Collection<OrderKey> committed, List<String> refusals) {
        Set<OrderKey> orders = new HashSet<>(committed);
        Set<OrderKey> shipments = new HashSet<>(shipped);
        long stray = shipments.stream().filter(s -> !orders.contains(s)).count();
        long missing = orders.stream().filter(o -> !shipments.contains(o)).count();
        return new ShippingSnapshot(shipped.size(), stray, missing, refusals);
    }
}
