// SPDX-License-Identifier: Apache-2.0
// The simplification behind ExprContext::operation (core/shape_expr.h): each node's value as a sum of terms
// (constant + sum of coefficient * product of factors), from which sums, differences and products are rebuilt in one
// canonical structure and quotients, comparisons, max and min are decided where the operands allow.
//
// Sums and products of at most kMaxTerms terms and kMaxFactors factors are taken apart; a larger one stays a factor as
// it is, so that simplifying a node costs a bounded amount of work and memory whatever the graph.
#include "core/shape_expr.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

namespace kiln
{

//! constant + sum of terms. Factors are nodes that are neither constants, sums, differences nor products (or a sum
//! kept whole inside a product), sorted by id; terms are sorted by their factors, with non-zero coefficients and
//! distinct factor lists.
struct LinearForm
{
    struct Term
    {
        int64_t coefficient{};
        std::vector<DimExpr const*> factors;
    };
    int64_t constant{};
    std::vector<Term> terms;
};

namespace
{

using Term = LinearForm::Term;

constexpr std::size_t kMaxTerms = 16;
constexpr std::size_t kMaxFactors = 16;
constexpr int64_t kMinValue = std::numeric_limits<int64_t>::min();

bool factorsLess(std::vector<DimExpr const*> const& a, std::vector<DimExpr const*> const& b) noexcept
{
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(), [](DimExpr const* x, DimExpr const* y) { return x->id() < y->id(); });
}

LinearForm atom(DimExpr const& node)
{
    return LinearForm{0, {Term{1, {&node}}}};
}

//! a + sign * b (sign 1 or -1); nullopt on overflow or too many terms.
std::optional<LinearForm> combine(LinearForm const& a, LinearForm const& b, int64_t sign)
{
    LinearForm sum;
    int64_t scaled = 0;
    if (__builtin_mul_overflow(b.constant, sign, &scaled) || __builtin_add_overflow(a.constant, scaled, &sum.constant))
    {
        return std::nullopt;
    }
    auto x = a.terms.begin();
    auto y = b.terms.begin();
    while (x != a.terms.end() || y != b.terms.end())
    {
        Term term;
        if (y == b.terms.end() || (x != a.terms.end() && factorsLess(x->factors, y->factors)))
        {
            term = *x++;
        }
        else
        {
            if (__builtin_mul_overflow(y->coefficient, sign, &term.coefficient))
            {
                return std::nullopt;
            }
            term.factors = y->factors;
            if (x != a.terms.end() && x->factors == y->factors
                && __builtin_add_overflow(x->coefficient, term.coefficient, &term.coefficient))
            {
                return std::nullopt;
            }
            x += (x != a.terms.end() && x->factors == y->factors) ? 1 : 0;
            ++y;
        }
        if (term.coefficient != 0)
        {
            sum.terms.push_back(std::move(term));
        }
    }
    if (sum.terms.size() > kMaxTerms)
    {
        return std::nullopt;
    }
    return sum;
}

//! form * k; nullopt on overflow.
std::optional<LinearForm> scale(LinearForm form, int64_t k)
{
    if (k == 0)
    {
        return LinearForm{};
    }
    if (__builtin_mul_overflow(form.constant, k, &form.constant))
    {
        return std::nullopt;
    }
    for (Term& term : form.terms)
    {
        if (__builtin_mul_overflow(term.coefficient, k, &term.coefficient))
        {
            return std::nullopt;
        }
    }
    return form;
}

//! The one term of a form that is a single term without a constant, or the node as a factor.
Term monomial(LinearForm const& form, DimExpr const& node)
{
    if (form.constant == 0 && form.terms.size() == 1)
    {
        return form.terms.front();
    }
    return Term{1, {&node}};
}

//! The product of two forms: a constant scales the other; otherwise both are single terms (a sum stays one factor).
std::optional<LinearForm> multiply(LinearForm const& a, DimExpr const& aNode, LinearForm const& b, DimExpr const& bNode)
{
    if (a.terms.empty())
    {
        return scale(b, a.constant);
    }
    if (b.terms.empty())
    {
        return scale(a, b.constant);
    }
    Term const x = monomial(a, aNode);
    Term const y = monomial(b, bNode);
    Term product;
    if (__builtin_mul_overflow(x.coefficient, y.coefficient, &product.coefficient)
        || x.factors.size() + y.factors.size() > kMaxFactors)
    {
        return std::nullopt;
    }
    std::merge(x.factors.begin(), x.factors.end(), y.factors.begin(), y.factors.end(),
        std::back_inserter(product.factors), [](DimExpr const* p, DimExpr const* q) { return p->id() < q->id(); });
    return LinearForm{0, {std::move(product)}};
}

//! Whether the coefficients and constant are all free of the one value whose magnitude int64_t cannot hold.
bool negatable(LinearForm const& form) noexcept
{
    return form.constant != kMinValue
        && std::none_of(form.terms.begin(), form.terms.end(), [](Term const& t) { return t.coefficient == kMinValue; });
}

//! The greatest common divisor of every coefficient and constant of a and b (0 when all are 0).
int64_t commonDivisor(LinearForm const& a, LinearForm const& b) noexcept
{
    int64_t g = 0;
    for (LinearForm const* form : {&a, &b})
    {
        g = std::gcd(g, form->constant);
        for (Term const& term : form->terms)
        {
            g = std::gcd(g, term.coefficient);
        }
    }
    return g;
}

//! The factors every term of a and b has (none when either has a constant), as a sorted multiset.
std::vector<DimExpr const*> commonFactors(LinearForm const& a, LinearForm const& b)
{
    if (a.constant != 0 || b.constant != 0 || a.terms.empty() || b.terms.empty())
    {
        return {};
    }
    std::vector<DimExpr const*> common = a.terms.front().factors;
    auto const byId = [](DimExpr const* p, DimExpr const* q) { return p->id() < q->id(); };
    for (LinearForm const* form : {&a, &b})
    {
        for (Term const& term : form->terms)
        {
            std::vector<DimExpr const*> kept;
            std::set_intersection(
                common.begin(), common.end(), term.factors.begin(), term.factors.end(), std::back_inserter(kept), byId);
            common = std::move(kept);
        }
    }
    return common;
}

//! form / (divisor * common), every coefficient being a multiple of divisor and every term holding common. Terms stay
//! sorted: removing the same factors from each keeps distinct lists in order only after a sort, which this does.
LinearForm divideExactly(LinearForm const& form, int64_t divisor, std::vector<DimExpr const*> const& common)
{
    auto const byId = [](DimExpr const* p, DimExpr const* q) { return p->id() < q->id(); };
    LinearForm quotient{form.constant / divisor, {}};
    for (Term const& term : form.terms)
    {
        Term reduced{term.coefficient / divisor, {}};
        std::set_difference(term.factors.begin(), term.factors.end(), common.begin(), common.end(),
            std::back_inserter(reduced.factors), byId);
        if (reduced.factors.empty())
        {
            quotient.constant += reduced.coefficient; // only when common held all its factors: no other such term
        }
        else
        {
            quotient.terms.push_back(std::move(reduced));
        }
    }
    std::sort(quotient.terms.begin(), quotient.terms.end(),
        [](Term const& x, Term const& y) { return factorsLess(x.factors, y.factors); });
    return quotient;
}

bool sameForm(LinearForm const& a, LinearForm const& b) noexcept
{
    return a.constant == b.constant
        && std::equal(a.terms.begin(), a.terms.end(), b.terms.begin(), b.terms.end(),
            [](Term const& x, Term const& y) { return x.coefficient == y.coefficient && x.factors == y.factors; });
}

} // namespace

ExprContext::ExprContext() = default;
ExprContext::~ExprContext() = default;

LinearForm const& ExprContext::form(DimExpr const& expr)
{
    if (auto found = mForms.find(expr.id()); found != mForms.end())
    {
        return *found->second;
    }
    std::optional<LinearForm> result;
    switch (expr.kind())
    {
    case DimExpr::Kind::kCONSTANT: result = LinearForm{expr.value(), {}}; break;
    case DimExpr::Kind::kSYMBOL: break;
    case DimExpr::Kind::kOPERATION:
        switch (expr.op())
        {
        case DimensionOperation::kSUM: result = combine(form(*expr.lhs()), form(*expr.rhs()), 1); break;
        case DimensionOperation::kSUB: result = combine(form(*expr.lhs()), form(*expr.rhs()), -1); break;
        case DimensionOperation::kPROD:
            result = multiply(form(*expr.lhs()), *expr.lhs(), form(*expr.rhs()), *expr.rhs());
            break;
        default: break;
        }
        break;
    }
    auto stored = std::make_unique<LinearForm>(result ? std::move(*result) : atom(expr));
    return *mForms.emplace(expr.id(), std::move(stored)).first->second;
}

DimExpr const* ExprContext::build(LinearForm const& form)
{
    // Positive terms summed, then the negative ones subtracted, then the constant: "(a + b) - c", "(n - 1)".
    auto const termNode = [&](Term const& term) {
        DimExpr const* node = term.factors.front();
        for (std::size_t i = 1; i < term.factors.size(); ++i)
        {
            node = intern(DimensionOperation::kPROD, *node, *term.factors[i]);
        }
        int64_t const magnitude = term.coefficient < 0 ? -term.coefficient : term.coefficient;
        return magnitude == 1 ? node : intern(DimensionOperation::kPROD, *node, *constant(magnitude));
    };
    if (!negatable(form))
    {
        return nullptr;
    }
    DimExpr const* positive = nullptr;
    DimExpr const* negative = nullptr;
    for (Term const& term : form.terms)
    {
        DimExpr const*& sum = term.coefficient > 0 ? positive : negative;
        DimExpr const* node = termNode(term);
        sum = sum == nullptr ? node : intern(DimensionOperation::kSUM, *sum, *node);
    }
    if (positive == nullptr && negative == nullptr)
    {
        return constant(form.constant);
    }
    int64_t rest = form.constant;
    if (positive == nullptr)
    {
        positive = constant(rest > 0 ? rest : 0); // "3 - n", "0 - n"
        rest = rest > 0 ? 0 : rest;
    }
    DimExpr const* result = positive;
    if (negative != nullptr)
    {
        result = intern(DimensionOperation::kSUB, *result, *negative);
    }
    if (rest > 0)
    {
        result = intern(DimensionOperation::kSUM, *result, *constant(rest));
    }
    else if (rest < 0)
    {
        result = intern(DimensionOperation::kSUB, *result, *constant(-rest));
    }
    return result;
}

DimExpr const* ExprContext::simplify(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs)
{
    LinearForm const& a = form(lhs);
    LinearForm const& b = form(rhs);
    switch (op)
    {
    case DimensionOperation::kSUM:
    case DimensionOperation::kSUB:
    {
        auto const sum = combine(a, b, op == DimensionOperation::kSUM ? 1 : -1);
        return sum ? build(*sum) : nullptr;
    }
    case DimensionOperation::kPROD:
    {
        auto const product = multiply(a, lhs, b, rhs);
        return product ? build(*product) : nullptr;
    }
    case DimensionOperation::kFLOOR_DIV:
    case DimensionOperation::kCEIL_DIV: return simplifyDivision(op, lhs, rhs);
    case DimensionOperation::kEQUAL:
    case DimensionOperation::kLESS:
    case DimensionOperation::kMAX:
    case DimensionOperation::kMIN:
    {
        // Operands that differ by a constant d = lhs - rhs compare the same way for every value of the symbols.
        auto const difference = combine(a, b, -1);
        if (!difference || !difference->terms.empty())
        {
            return nullptr;
        }
        int64_t const d = difference->constant;
        switch (op)
        {
        case DimensionOperation::kEQUAL: return constant(d == 0 ? 1 : 0);
        case DimensionOperation::kLESS: return constant(d < 0 ? 1 : 0);
        case DimensionOperation::kMAX: return d >= 0 ? &lhs : &rhs;
        default: return d <= 0 ? &lhs : &rhs;
        }
    }
    }
    return nullptr;
}

DimExpr const* ExprContext::simplifyDivision(DimensionOperation op, DimExpr const& lhs, DimExpr const& rhs)
{
    // Dividing numerator and divisor by a common non-zero factor keeps the exact quotient, so its floor and ceiling:
    // (f*a)/(f*b) is a/b wherever f is not 0 (where the original divides by zero).
    LinearForm const& a = form(lhs);
    LinearForm const& b = form(rhs);
    if (!negatable(a) || !negatable(b))
    {
        return nullptr;
    }
    if (a.terms.empty() && a.constant == 0)
    {
        return constant(0);
    }
    if (!b.terms.empty() && !a.terms.empty())
    {
        // A numerator that is a constant multiple k of the divisor: the quotient is k exactly.
        Term const& lead = b.terms.front();
        Term const& numeratorLead = a.terms.front();
        if (numeratorLead.factors == lead.factors && numeratorLead.coefficient % lead.coefficient == 0)
        {
            int64_t const k = numeratorLead.coefficient / lead.coefficient;
            auto const multiple = scale(b, k);
            if (multiple && sameForm(*multiple, a))
            {
                return constant(k);
            }
        }
    }
    // A divisor that is a sum is one factor ((N + 1) * c over N + 1); so is a numerator that is a sum when the divisor
    // is not a constant (a sum over a constant has its multiples taken out below).
    auto const single = [](LinearForm const& f) { return f.terms.empty() || (f.constant == 0 && f.terms.size() == 1); };
    LinearForm const num0 = single(a) || b.terms.empty() ? a : atom(lhs);
    LinearForm const den0 = single(b) ? b : atom(rhs);
    int64_t const g = commonDivisor(num0, den0);
    std::vector<DimExpr const*> const common = commonFactors(num0, den0);
    LinearForm const num = divideExactly(num0, g, common);
    LinearForm const den = divideExactly(den0, g, common);
    bool const reduced = g != 1 || !common.empty();
    if (!den.terms.empty())
    {
        if (!reduced)
        {
            return nullptr;
        }
        DimExpr const* n = build(num);
        DimExpr const* d = build(den);
        return n != nullptr && d != nullptr ? intern(op, *n, *d) : nullptr;
    }

    // A constant divisor d: the terms that are multiples of d come out whole, floor((d*q + r) / d) = q + floor(r / d)
    // (the same for the ceiling), as every term of q is an integer.
    int64_t const d = den.constant;
    LinearForm whole{num.constant % d == 0 ? num.constant / d : 0, {}};
    LinearForm rest{num.constant % d == 0 ? 0 : num.constant, {}};
    for (Term const& term : num.terms)
    {
        if (term.coefficient % d == 0)
        {
            whole.terms.push_back(Term{term.coefficient / d, term.factors});
        }
        else
        {
            rest.terms.push_back(term);
        }
    }
    if (whole.terms.empty() && whole.constant == 0 && !reduced)
    {
        return nullptr;
    }
    DimExpr const* restNode = build(rest);
    DimExpr const* wholeNode = build(whole);
    if (restNode == nullptr || wholeNode == nullptr)
    {
        return nullptr;
    }
    auto quotient = rest.terms.empty() && rest.constant == 0 ? Expected<DimExpr const*>(constant(0))
                                                             : operation(op, *restNode, *constant(d));
    if (!quotient)
    {
        return nullptr;
    }
    auto sum = operation(DimensionOperation::kSUM, *wholeNode, *quotient.value());
    return sum ? sum.value() : nullptr;
}

} // namespace kiln
