// An ordered_json object built member by member in linear time. ordered_json's operator[] searches
// the keys one by one, so filling an object of n members that way is quadratic: minutes for the tens
// of thousands of engines or sites a damaged trace can name (the analysis fuzzer found one).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_map>

namespace sparkscope::core::detail {

class JsonObjectBuilder {
public:
    using Json = nlohmann::ordered_json;

    // object[key] = value: a new key goes last, a key set before keeps its place and takes the value.
    void set(const std::string& key, Json value)
    {
        auto& members = m_object.get_ref<Json::object_t&>();
        const auto [at, fresh] = m_index.try_emplace(key, members.size());
        if (fresh)
            members.emplace_back(key, std::move(value));
        else
            (members.begin() + long(at->second))->second = std::move(value);
    }
    Json take() { return std::move(m_object); }

private:
    Json m_object = Json::object();
    std::unordered_map<std::string, size_t> m_index; // key -> position in m_object
};

} // namespace sparkscope::core::detail
