// Helpers of the vtable slot tests (Itanium C++ ABI: GCC/Clang on Linux and other non-Windows targets).
//
// A pointer to a virtual member function is two words {ptr, adj}. On x86-64 (and most targets) ptr is
// 1 + slot * sizeof(void*) and adj the this-adjustment; on ARM the "virtual" bit lives in adj instead and ptr is
// the byte offset. slotOf() decodes that, so `KILN_SLOT(4, IPluginV3OneBuild, configurePlugin, <signature>)` reads
// like a row of the spec's slot tables. The signature is spelled out in full (const and noexcept included, as the
// pointer's type): a header that drops a `noexcept`, adds or drops a `const` or changes a parameter no longer
// compiles here, and a row whose spec signature has no `noexcept` fails if the header declares one anyway.
// slotCount<C>() finds how many slots C's vtable has, by adding one virtual in a derived class and reading its
// slot; expectVtable() then demands that the rows and destructor slots cover every slot exactly once.

#ifndef KILN_TESTS_HEADERS_SLOT_PROBE_H
#define KILN_TESTS_HEADERS_SLOT_PROBE_H

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <set>
#include <string>
#include <type_traits>

#if defined(__GNUC__) && !defined(_WIN32)
#define KILN_ITANIUM_ABI 1
#endif

namespace kiln_test
{

//! One row of a slot table: the member, the slot the spec gives, the slot the headers produce, and whether the
//! headers made noexcept a member the spec leaves potentially-throwing.
struct SlotRow
{
    char const* member;
    int32_t expected;
    int32_t actual;
    bool destructor;
    bool addsNoexcept;
};

//! Splits a member's function type into "is it noexcept" and the same type with noexcept.
template <typename Sig>
struct NoexceptOf;

template <typename R, typename... A>
struct NoexceptOf<R(A...)>
{
    static constexpr bool value = false;
    using WithNoexcept = R(A...) noexcept;
};

template <typename R, typename... A>
struct NoexceptOf<R(A...) const>
{
    static constexpr bool value = false;
    using WithNoexcept = R(A...) const noexcept;
};

template <typename R, typename... A>
struct NoexceptOf<R(A...) noexcept>
{
    static constexpr bool value = true;
    using WithNoexcept = R(A...) noexcept;
};

template <typename R, typename... A>
struct NoexceptOf<R(A...) const noexcept>
{
    static constexpr bool value = true;
    using WithNoexcept = R(A...) const noexcept;
};

template <typename T>
struct TypeTag
{
    using type = T;
};

//! Copy-initialises a T: only implicit conversions (never noexcept-adding ones) are allowed.
template <typename T>
T implicitly(T value) noexcept
{
    return value;
}

//! True when the spec's Sig has no noexcept but the member named inside cast (a generic lambda that converts the
//! member's address implicitly to the tag's type) converts to the noexcept form: the headers declare it noexcept.
template <typename Sig, typename C, typename Cast>
constexpr bool addsNoexcept(Cast /*cast*/) noexcept
{
    return !NoexceptOf<Sig>::value
        && std::is_invocable<Cast, TypeTag<typename NoexceptOf<Sig>::WithNoexcept C::*>>::value;
}

//! Slot value for a pointer that is not a virtual function pointer, or not one of the primary vtable.
constexpr int32_t kNotVirtual = -1;
constexpr int32_t kAdjusted = -2;

#if defined(KILN_ITANIUM_ABI)

//! The vtable slot a pointer to a virtual member function of C designates. Sig is the member's function type,
//! cv- and noexcept-qualified as in the spec; overloads are selected by it.
template <typename Sig, typename C>
int32_t slotOf(Sig C::*pmf) noexcept
{
    static_assert(std::is_function<Sig>::value, "Sig must be a function type");
    struct Representation
    {
        std::uintptr_t ptr;
        std::ptrdiff_t adj;
    };
    static_assert(sizeof(pmf) == sizeof(Representation), "not the Itanium member-function-pointer layout");
    Representation rep{};
    std::memcpy(&rep, &pmf, sizeof(rep));
#if defined(__arm__) || defined(__aarch64__)
    if ((rep.adj & 1) == 0)
    {
        return kNotVirtual;
    }
    if ((rep.adj >> 1) != 0)
    {
        return kAdjusted;
    }
    return static_cast<int32_t>(rep.ptr / sizeof(void*));
#else
    if ((rep.ptr & 1U) == 0)
    {
        return kNotVirtual;
    }
    if (rep.adj != 0)
    {
        return kAdjusted;
    }
    return static_cast<int32_t>((rep.ptr - 1U) / sizeof(void*));
#endif
}

//! Derives from C and adds one virtual function, which lands in the first slot after C's.
template <typename C>
struct SlotCountProbe : C
{
    virtual void kilnSlotCountProbe() noexcept {}
};

//! The number of slots in C's vtable (Itanium destructors count twice).
template <typename C>
int32_t slotCount() noexcept
{
    return slotOf<void() noexcept, SlotCountProbe<C>>(&SlotCountProbe<C>::kilnSlotCountProbe);
}

#endif // KILN_ITANIUM_ABI

//! Checks a slot table: every row at its slot; rows and destructor slots covering firstOwnSlot..totalSlots-1 once
//! each (slots below firstOwnSlot are inherited and checked in the base's own table, but a row may re-check them);
//! and the vtable exactly totalSlots long.
inline void expectVtable(char const* interfaceName, int32_t actualTotal, int32_t totalSlots, int32_t firstOwnSlot,
    std::initializer_list<SlotRow> rows)
{
    EXPECT_EQ(actualTotal, totalSlots) << interfaceName << ": the vtable has " << actualTotal
                                       << " slots; the spec says " << totalSlots;
    std::multiset<int32_t> covered;
    for (SlotRow const& row : rows)
    {
        EXPECT_EQ(row.actual, row.expected) << interfaceName << "::" << row.member << " is in slot " << row.actual
                                            << "; the spec says slot " << row.expected;
        EXPECT_FALSE(row.addsNoexcept) << interfaceName << "::" << row.member
                                       << " is noexcept in the headers; the spec declares it without noexcept";
        covered.insert(row.expected);
        if (row.destructor)
        {
            covered.insert(row.expected + 1);
        }
    }
    for (int32_t slot = firstOwnSlot; slot < totalSlots; ++slot)
    {
        EXPECT_EQ(covered.count(slot), 1U)
            << interfaceName << ": slot " << slot << " must be described by exactly one row of the table";
    }
}

} // namespace kiln_test

//! A row: slot, class, member, then the member's full function type (variadic because it contains commas).
#define KILN_SLOT(slot, Class, member, ...)                                                                            \
    ::kiln_test::SlotRow                                                                                               \
    {                                                                                                                  \
#member, slot, ::kiln_test::slotOf < __VA_ARGS__, Class>(&Class::member), false,                               \
            ::kiln_test::addsNoexcept < __VA_ARGS__,                                                                   \
            Class>([](auto tag) -> decltype(::kiln_test::implicitly <typename decltype(tag)::type>(&Class::member)) {  \
                return {};                                                                                             \
            })                                                                                                         \
    }

//! A row for the two destructor entries (D1 complete-object, D0 deleting) at slot and slot + 1. A destructor cannot
//! be addressed; vtable_destructor_test.cpp calls these entries to check them.
#define KILN_DTOR(slot)                                                                                                \
    ::kiln_test::SlotRow                                                                                               \
    {                                                                                                                  \
        "~ (D1, D0)", slot, slot, true, false                                                                          \
    }

//! Checks the table of Class: total slots, first slot the class itself adds, then the rows.
#define KILN_EXPECT_VTABLE(Class, totalSlots, firstOwnSlot, ...)                                                       \
    ::kiln_test::expectVtable(#Class, ::kiln_test::slotCount<Class>(), totalSlots, firstOwnSlot, {__VA_ARGS__})

#endif // KILN_TESTS_HEADERS_SLOT_PROBE_H
